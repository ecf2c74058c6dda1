// The web UI in a real headless Chromium (issue 18 item 4, interfaces §5 cases 8, 10, 12): served by the daemon at
// /ui; a wrong token is refused; sign-in sets an HttpOnly SameSite=Strict cookie; a message shows activity then the
// reply (scripted model); a yes/no question is answered with its buttons; a running task is cancelled (its worker
// is gone); a second client's message appears live; the CSP header is sent and nothing outside the daemon loads; a
// cookie call from another origin is refused.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { DaemonClient } from '../../../src/client/daemonClient.js';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { runAgentd, tempStateDir } from '../harness.js';
import { firstPage, launchBrowser } from './browser.js';
import { moment, spawnCount, turnInCall } from './cancelProbe.js';
import { MCP_SERVERS, startClientModel } from './clientScript.js';

const SCREENSHOT = fileURLToPath(new URL('../../../../docs/web-ui.png', import.meta.url));
const OPERATOR_TOKEN = 'op-token-0123456789';
const ALICE_TOKEN = 'alice-token-0123456789';
const WAIT = { timeout: 20_000 };

describe('the web UI in headless Chromium', { timeout: 240_000 }, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let browser: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  before(async () => {
    model = await startClientModel({ type: 'boolean' });
    const yaml = [
      'a2a:',
      '  listen: http://127.0.0.1:0',
      '  principals:',
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}',
      '    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}',
      'intelligence:',
      `  endpoints: ${model.url}`,
      '  budget: {windows: [{per: day, tokens: 50000000}]}',
      ...MCP_SERVERS,
      '',
    ].join('\n');
    daemon = await startDaemon(tempStateDir(), yaml, { ALICE_TOKEN, OPERATOR_TOKEN });
    browser = await launchBrowser();
    page = await firstPage(browser, requested);
  });
  after(async () => {
    await browser?.close();
    await daemon?.stop();
    await model?.close();
  });

  it('serves /ui with a strict CSP, refuses a wrong token, and signs in with a HttpOnly SameSite=Strict cookie', async () => {
    const res = await page.goto(`${daemon.url}/ui`);
    const csp = res?.headers()['content-security-policy'] ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    await page.getByLabel('Access token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'sign-in refused' }).waitFor(WAIT);
    assert.equal((await browser.cookies()).length, 0, 'a refused sign-in sets no cookie');
    await page.getByLabel('Access token').fill(OPERATOR_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByText('● live').waitFor(WAIT);
    const [cookie] = await browser.cookies();
    assert.equal(cookie?.name, 'agentd_session');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    assert.ok(!cookie?.value.includes(OPERATOR_TOKEN), 'the cookie is a session id, not the token');
  });

  it('sends a message and shows thinking, then the tool, then the reply', async () => {
    await page.getByLabel('Message').fill('quick tool please');
    await page.getByLabel('Message').press('Enter');
    await page.locator('.working', { hasText: 'thinking' }).waitFor(WAIT);
    await page.locator('.working', { hasText: 'trigger-long-running-operation' }).waitFor(WAIT);
    await page.locator('.row.agent', { hasText: 'all done' }).waitFor(WAIT);
    await page.locator('.row.tool', { hasText: 'trigger-long-running-operation' }).waitFor(WAIT);
    // The screenshot in docs/guide/interfaces.md: `AGENTD_UPDATE_SCREENSHOTS=1` writes it to docs/web-ui.png.
    const shot = await page.screenshot();
    if (process.env.AGENTD_UPDATE_SCREENSHOTS === '1') writeFileSync(SCREENSHOT, shot);
  });

  it('answers a yes/no question with its buttons', async () => {
    await page.getByLabel('Message').fill('ask me please');
    await page.getByRole('button', { name: 'Send' }).click();
    const yes = page.getByRole('group', { name: 'Ship it?' }).getByRole('button', { name: 'yes' });
    await yes.waitFor(WAIT);
    assert.equal(await page.getByRole('button', { name: 'no' }).count(), 1, 'both choices are offered');
    // By keyboard alone: the choice is a real button that takes focus and answers to Enter.
    await yes.focus();
    await page.keyboard.press('Enter');
    // The tool result the model reads carries the answer the button sends (`true`), not the label.
    const toolResult = () =>
      JSON.stringify(
        (model.requests.at(-1)?.body as { messages?: Array<{ role: string }> })?.messages?.filter(
          (m) => m.role === 'tool',
        ),
      );
    await waitUntil(() => /reply[^,]*true/.test(toolResult()), 20_000, 'the model gets the answer true');
    await page.locator('.row.agent', { hasText: 'all done' }).nth(1).waitFor(WAIT);
    assert.equal(await page.getByRole('group', { name: 'Ship it?' }).count(), 0, 'the form is gone once answered');
  });

  it('cancels a running task: canceled shows only once its worker and MCP server are gone', async () => {
    const before = spawnCount(daemon);
    await page.getByLabel('Message').fill('long tool please');
    await page.getByLabel('Message').press('Enter');
    const procs = await turnInCall(daemon, before, 'hold_on', 'lingeringMcpServer');
    await page.locator('.working', { hasText: 'hold_on' }).waitFor(WAIT);
    const start = moment('mid-call', procs);
    assert.ok(start.workerAlive && start.mcpAlive, 'premise: the worker and its MCP server run mid-call');
    // The first press only asks (agentd's web UI cancelled at once); keeping it leaves the turn running.
    await page.getByRole('button', { name: /^Cancel task/ }).click();
    const ask = page.getByRole('alertdialog', { name: /^Cancel task/ });
    await ask.getByRole('button', { name: 'Keep running' }).click();
    await page.getByRole('button', { name: /^Cancel task/ }).waitFor(WAIT);
    const kept = moment('kept', procs);
    assert.ok(kept.workerAlive && kept.mcpAlive, 'nothing was cancelled before the yes');
    assert.equal(await page.locator('.row.error', { hasText: 'canceled' }).count(), 0);
    await page.getByRole('button', { name: /^Cancel task/ }).click();
    await ask.getByRole('button', { name: 'Yes, cancel' }).click();
    await page.locator('.row.error', { hasText: 'canceled' }).waitFor(WAIT);
    // The MCP server is slow to stop: before, the page showed canceled while both still ran (about 1.3 s).
    const shown = moment('web page', procs);
    assert.equal(shown.workerAlive, false, 'the worker was gone when canceled showed');
    assert.equal(shown.mcpAlive, false, 'the MCP server was gone when canceled showed');
  });

  it("shows a second client's message live", async () => {
    const alice = new DaemonClient({ url: daemon.url, token: ALICE_TOKEN });
    await alice.send('hello from the second client', { wait: false });
    await page
      .getByRole('navigation', { name: 'Conversations' })
      .getByText('hello from the second client')
      .waitFor(WAIT);
  });

  it('refuses a cookie call from another origin, and loaded nothing from outside the daemon', async () => {
    const [cookie] = await browser.cookies();
    const call = (origin: string) =>
      fetch(daemon.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `agentd_session=${cookie?.value}`, origin },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
      });
    assert.equal((await call(daemon.url)).status, 200, 'premise: the same origin with the cookie is served');
    assert.equal((await call('http://evil.example')).status, 403, 'an unlisted origin is refused (a2a.origins)');
    assert.equal((await call('http://127.0.0.1:3000')).status, 401, 'another loopback port rides no session');
    assert.ok(requested.length > 3, 'premise: the page made requests');
    const outside = requested.filter((u) => !u.startsWith(`${daemon.url}/`) && !u.startsWith('data:'));
    assert.deepEqual(outside, [], 'every request went to the daemon');
    assert.ok(!requested.some((u) => u.includes(OPERATOR_TOKEN)), 'no credential in a URL');
  });

  it('lists tasks with their states and shows the status page', async () => {
    await page.getByRole('button', { name: 'tasks' }).click();
    const table = page.getByRole('main', { name: 'Tasks' });
    await table.locator('td.state.canceled').first().waitFor(WAIT);
    assert.ok((await table.locator('td.state.completed').count()) >= 2, 'the completed turns are listed');
    await page.getByRole('button', { name: 'status' }).click();
    const status = page.getByRole('main', { name: 'Status' });
    await status.locator('dt').first().waitFor(WAIT);
    assert.ok((await status.locator('dt').count()) > 3, 'the status document is shown field by field');
    // Live turns, the queue, the workers and the budget (issue 18 item 4's status page).
    const field = (name: string) =>
      status.locator('.field', { has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) });
    for (const name of ['running_turns', 'queued', 'workers', 'budget']) {
      assert.equal(await field(name).count(), 1, `the status page shows ${name}`);
    }
    assert.match(
      (await field('workers').locator('dd').textContent()) ?? '',
      /^\d+ busy, \d+ spare \(target \d+\), max \d+$/,
    );
    assert.match(
      (await field('budget').locator('dd').textContent()) ?? '',
      /per day [1-9]\d*\/50000000 tokens, \d+\/(\d+|∞) requests, resets \d{4}-.*lifetime \d+\/(\d+|∞) tokens/,
    );
    await page.getByRole('button', { name: 'chat' }).click();
  });

  it('names every control for assistive technology', async () => {
    const unnamed = await page.evaluate(`[...document.querySelectorAll('button, input, textarea, select')]
      .filter((el) => !(el.getAttribute('aria-label') || (el.labels && el.labels.length) || el.textContent.trim()))
      .map((el) => el.outerHTML.slice(0, 80))`);
    const controls = await page.locator('button, input, textarea').count();
    assert.ok(controls > 3, 'premise: the chat view has controls');
    assert.deepEqual(unnamed, [], 'every button and field has a label or text');
  });

  it('fits a phone-sized screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const width = await page.evaluate('document.documentElement.scrollWidth');
    assert.ok(Number(width) <= 390, `no sideways scrolling on a phone (scrollWidth ${width})`);
    assert.ok(await page.getByLabel('Message').isVisible(), 'the composer is on screen');
  });

  it('opens the most recent conversation when the page opens', async () => {
    const operator = new DaemonClient({ url: daemon.url, token: OPERATOR_TOKEN });
    await operator.send('the latest words', { contextId: 'latest-ctx' });
    // `/ui` itself (a reload would keep the deep link of the conversation in view, /ui/c/<context>).
    await page.goto(`${daemon.url}/ui`);
    await page.getByText('● live').waitFor(WAIT);
    // Without it the page opened on no conversation: an empty transcript until one was chosen.
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.locator('.row.user', { hasText: 'the latest words' }).waitFor(WAIT);
    await transcript.locator('.row.agent').first().waitFor(WAIT);
    const chosen = page.getByRole('navigation', { name: 'Conversations' }).locator('[aria-pressed="true"]');
    assert.equal(await chosen.getAttribute('title'), 'latest-ctx');
    assert.equal(await transcript.locator('.row.user', { hasText: 'the latest words' }).count(), 1, 'shown once');
  });
  it("shows the goal `agentd goal set` sets in the conversation's header, live", async () => {
    const header = page.getByRole('status', { name: 'Goal' });
    assert.equal(await header.count(), 0, 'premise: no goal is shown before one is set');
    const env = { AGENTD_URL: daemon.url, AGENTD_TOKEN: OPERATOR_TOKEN };
    const set = await runAgentd(['goal', 'set', '--conversation', 'latest-ctx', 'ship the report'], { env });
    assert.equal(set.code, 0, set.stderr);
    await header.filter({ hasText: /goal: ship the report \(/ }).waitFor(WAIT);
    // A reload keeps it: the conversation's history read brings the goal with its messages.
    await page.reload();
    await header.filter({ hasText: /goal: ship the report \(/ }).waitFor(WAIT);
  });

  it("keeps another principal's conversation of the same name apart, labelled, and listed after a reload", async () => {
    const alice = new DaemonClient({ url: daemon.url, token: ALICE_TOKEN });
    await alice.send('alice in latest-ctx', { contextId: 'latest-ctx' });
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    const hers = nav.locator('[title="user:alice/latest-ctx"]');
    await hers.waitFor(WAIT);
    assert.equal(await hers.locator('.by').textContent(), 'user:alice', 'labelled with its principal');
    assert.equal(await nav.locator('[title="latest-ctx"]').count(), 1, "the operator's own latest-ctx is apart");
    const transcript = page.getByRole('list', { name: 'Transcript' });
    assert.equal(await transcript.getByText('alice in latest-ctx').count(), 0, "not in the operator's own view");
    // The feed starts from now on a load: the nav comes from conversation.list, not a replay of the feed.
    const loads = requested.length;
    await page.reload();
    await hers.waitFor(WAIT);
    const feeds = requested.slice(loads).filter((u) => new URL(u).pathname === '/feed');
    assert.deepEqual(feeds, [`${daemon.url}/feed?since=latest`], 'the feed is followed from now, not replayed');
    await hers.click();
    await transcript.locator('.row.user', { hasText: 'alice in latest-ctx' }).waitFor(WAIT);
  });
});
