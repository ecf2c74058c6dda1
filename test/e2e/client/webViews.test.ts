// The web UI's views and guards in a real headless Chromium (issue 18, interfaces §5 cases 10–12): a credential in
// a URL is refused and never logged; the CSP blocks an inline script in the browser itself; the subagents
// master–detail (with a stop that asks first) and the deep links /ui/c/… and /ui/subagents/…; two tabs of one
// browser converge on the same conversation, question included.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { DaemonClient } from '../../../src/client/daemonClient.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { tempStateDir } from '../harness.js';
import { firstPage, launchBrowser } from './browser.js';

const ALICE_TOKEN = 'alice-views-token-0123456789';
const OPERATOR_TOKEN = 'op-views-token-0123456789';
const WAIT = { timeout: 20_000 };
const SCREENSHOT = fileURLToPath(new URL('../../../../docs/web-subagents.png', import.meta.url));

function startViewsModel(): Promise<ScriptedModel> {
  const run = (instruction: string) => ({ name: 'subagent.run', arguments: { instruction, mode: 'async' } });
  const deliver = (to: string, text: string) => ({ name: 'message.send', arguments: { to, text } });
  return startScriptedModel({
    turns: [{ content: 'all done' }],
    match: [
      // Later turns of the delegating conversation (a subagent's end noted there) answer at once.
      { when_contains: 'helper result 42', content: 'noted the helper' },
      { when_contains: 'stopped from the web UI', content: 'noted the stop' },
      { when_contains: 'delegate twice please', times: 1, tool_calls: [run('slow helper'), run('quick helper')] },
      { when_contains: 'delegate twice please', content: 'delegated' },
      { when_contains: 'slow helper', delay_ms: 60_000, content: 'never' },
      { when_contains: 'quick helper', content: 'helper result 42' },
      // A delivery to another of alice's conversations: a turn no task follows (slow, then one that fails).
      { when_contains: 'tell the side', times: 1, tool_calls: [deliver('user:alice/side', 'side job')] },
      { when_contains: 'tell the side', content: 'sent' },
      { when_contains: 'side job', delay_ms: 5_000, content: 'side done' },
      { when_contains: 'tell the broken side', times: 1, tool_calls: [deliver('user:alice/broken', 'broken errand')] },
      { when_contains: 'tell the broken side', content: 'sent' },
      { when_contains: 'broken errand', http_status: 400 },
      {
        when_contains: 'ask both tabs',
        times: 1,
        tool_calls: [{ name: 'ask_human', arguments: { question: 'Go ahead?', schema: { type: 'boolean' } } }],
      },
    ],
  });
}

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/ui`);
  await page.getByLabel('Access token').fill(ALICE_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('● live').waitFor(WAIT);
}

describe('the web UI views and guards in headless Chromium', { timeout: 240_000 }, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let browser: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  before(async () => {
    model = await startViewsModel();
    const yaml = [
      'a2a:',
      '  listen: http://127.0.0.1:0',
      '  principals:',
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}',
      '    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}',
      'agent:',
      '  preflight: never',
      'intelligence:',
      `  endpoints: ${model.url}`,
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

  it('refuses a credential in the URL (?bearer=) on every route of the listener, and never logs it', async () => {
    const works = await fetch(`${daemon.url}/feed?since=latest`, {
      headers: { authorization: `Bearer ${ALICE_TOKEN}` },
      signal: AbortSignal.timeout(5_000),
    });
    assert.equal(works.status, 200, 'premise: the token is good in its header');
    await works.body?.cancel();
    const targets: Array<[string, string]> = [
      ['GET', `/ui?bearer=${ALICE_TOKEN}`],
      ['GET', `/ui/c/x?bearer=${ALICE_TOKEN}`],
      ['GET', `/feed?bearer=${ALICE_TOKEN}`],
      ['POST', `/?bearer=${ALICE_TOKEN}`],
      ['GET', `/ui/session?access_token=${ALICE_TOKEN}`],
    ];
    for (const [method, target] of targets) {
      const body =
        method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }) : null;
      const res = await fetch(`${daemon.url}${target}`, { method, body, signal: AbortSignal.timeout(5_000) });
      const text = await res.text();
      assert.equal(res.status, 400, `${method} ${target.split('?')[0]} is refused`);
      assert.match(text, /a credential in the URL \(\?(bearer|access_token)=\) is refused/);
      assert.ok(!text.includes(ALICE_TOKEN), 'the answer does not echo the token');
    }
    // The browser gets the refusal too, and no session.
    const res = await page.goto(`${daemon.url}/ui?bearer=${ALICE_TOKEN}`);
    assert.equal(res?.status(), 400);
    assert.equal((await browser.cookies()).length, 0, 'no session from a URL');
    const refused = daemon.events.filter((e) => e.event === 'a2a.request' && e.outcome === 'credential_in_url');
    assert.equal(refused.length, targets.length + 1, 'each refusal is audited');
    assert.ok(!daemon.stderr().includes(ALICE_TOKEN), 'the token never reaches the log');
  });

  it('signs in without the token in any URL', async () => {
    requested.length = 0;
    await signIn(page, daemon.url);
    assert.ok(requested.length > 2, 'premise: the page made requests');
    assert.ok(!requested.some((u) => u.includes(ALICE_TOKEN)), 'no request URL carries the token');
    assert.equal(new URL(page.url()).search, '', 'the address holds no query');
  });

  it('blocks an inline script and an inline handler in the browser (the CSP is enforced, not only sent)', async () => {
    const inject = `new Promise((resolve) => {
      window.__ran = false;
      const violations = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
      const s = document.createElement('script');
      s.textContent = 'window.__ran = true';
      document.body.appendChild(s);
      window.__handled = false;
      const img = document.createElement('img');
      img.setAttribute('onerror', 'window.__handled = true');
      img.src = 'data:,not-an-image';
      document.body.appendChild(img);
      setTimeout(() => resolve({ ran: window.__ran, handled: window.__handled, violations }), 300);
    })`;
    // Premise: the same injection runs on a page with no policy.
    const plain = await browser.newPage();
    await plain.goto('about:blank');
    assert.deepEqual(await plain.evaluate(inject), { ran: true, handled: true, violations: [] });
    await plain.close();
    const got = (await page.evaluate(inject)) as { ran: boolean; handled: boolean; violations: string[] };
    assert.equal(got.ran, false, 'the inline script did not run');
    assert.equal(got.handled, false, 'the inline event handler did not run');
    assert.ok(
      got.violations.some((d) => d.startsWith('script-src')),
      `a script-src violation was reported (${got.violations.join(', ')})`,
    );
  });

  it('shows subagents master–detail, asks before stopping one, and opens deep links', async () => {
    await page.getByLabel('Message').fill('delegate twice please');
    await page.getByLabel('Message').press('Enter');
    await page.locator('.row.agent', { hasText: 'delegated' }).waitFor(WAIT);
    const chatPath = new URL(page.url()).pathname;
    assert.match(chatPath, /^\/ui\/c\/.+/, 'the conversation in view has its address');
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'subagents' }).click();
    assert.equal(new URL(page.url()).pathname, '/ui/subagents');
    const list = page.getByRole('navigation', { name: 'Subagent list' });
    await list.getByRole('button').nth(1).waitFor(WAIT);
    assert.equal(await list.getByRole('button').count(), 2, 'both subagents are listed');
    // The quick one: completed, its result shown, its message box disabled.
    const quick = list.getByRole('button').filter({ hasText: 'completed' });
    await quick.waitFor(WAIT);
    const quickHandle = (await quick.locator('.handle').textContent()) ?? '';
    await quick.click();
    assert.equal(new URL(page.url()).pathname, `/ui/subagents/${encodeURIComponent(quickHandle)}`);
    const quickDetail = page.getByRole('region', { name: `Subagent ${quickHandle}` });
    await quickDetail.locator('pre.result', { hasText: 'helper result 42' }).waitFor(WAIT);
    assert.equal(await quickDetail.getByLabel(`Message to ${quickHandle}`).isDisabled(), true);
    // The slow one: running, its live activity, and a stop that asks first.
    const slow = list.getByRole('button').filter({ hasText: 'running' });
    const slowHandle = (await slow.locator('.handle').textContent()) ?? '';
    await slow.click();
    const slowDetail = page.getByRole('region', { name: `Subagent ${slowHandle}` });
    await slowDetail.getByRole('status', { name: 'Activity' }).filter({ hasText: 'thinking' }).waitFor(WAIT);
    await slowDetail.getByRole('button', { name: `Stop ${slowHandle}` }).click();
    const ask = slowDetail.getByRole('alertdialog', { name: `Stop subagent ${slowHandle}?` });
    await ask.getByRole('button', { name: 'Keep running' }).click();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await slowDetail.locator('dd.state').textContent(), 'running', 'kept: nothing was stopped');
    await slowDetail.getByRole('button', { name: `Stop ${slowHandle}` }).click();
    await ask.getByRole('button', { name: 'Yes, stop it' }).click();
    // subagent.kill ends it `cancelled`, with the reason the page gives.
    await slowDetail.locator('dd.state', { hasText: 'cancelled' }).waitFor(WAIT);
    assert.equal(await slowDetail.locator('dd.error').textContent(), 'stopped from the web UI');
    assert.equal(await list.getByRole('button').count(), 2, 'the list stays visible');
    // docs/guide/interfaces.md shows this view: `AGENTD_UPDATE_SCREENSHOTS=1` writes docs/web-subagents.png.
    const shot = await page.screenshot();
    if (process.env.AGENTD_UPDATE_SCREENSHOTS === '1') writeFileSync(SCREENSHOT, shot);
    assert.equal(await slowDetail.getByLabel(`Message to ${slowHandle}`).isDisabled(), true);
    // Deep links: a subagent's and a conversation's address open them directly.
    await page.goto(`${daemon.url}/ui/subagents/${encodeURIComponent(quickHandle)}`);
    await page
      .getByRole('region', { name: `Subagent ${quickHandle}` })
      .locator('pre.result')
      .waitFor(WAIT);
    await page.goto(`${daemon.url}${chatPath}`);
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.locator('.row.user', { hasText: 'delegate twice please' }).waitFor(WAIT);
    await page.goBack();
    await page.getByRole('region', { name: `Subagent ${quickHandle}` }).waitFor(WAIT);
  });

  it('converges two tabs on the same conversation: messages, the reply and an answered question', async () => {
    const other = await browser.newPage();
    other.setDefaultTimeout(20_000);
    try {
      await page.goto(`${daemon.url}/ui`);
      await page.getByRole('button', { name: '+ New conversation' }).click();
      await page.getByLabel('Message').fill('hello from tab A');
      await page.getByLabel('Message').press('Enter');
      await page.locator('.row.agent', { hasText: 'all done' }).waitFor(WAIT);
      // The second tab opens the first one's address: the same conversation, from its stored history.
      await other.goto(page.url());
      await other.getByText('● live').waitFor(WAIT);
      const rows = (p: Page) => p.getByRole('list', { name: 'Transcript' }).locator('.row');
      await rows(other).filter({ hasText: 'all done' }).waitFor(WAIT);
      // Tab B writes; tab A sees it live, and the question it raises, in both.
      await other.getByLabel('Message').fill('ask both tabs');
      await other.getByLabel('Message').press('Enter');
      const form = (p: Page) => p.getByRole('group', { name: 'Go ahead?' });
      await form(page).waitFor(WAIT);
      await form(other).waitFor(WAIT);
      await rows(page).filter({ hasText: 'ask both tabs' }).waitFor(WAIT);
      await form(other).getByRole('button', { name: 'yes' }).click();
      await page.locator('.row.agent', { hasText: 'all done' }).nth(1).waitFor(WAIT);
      await other.locator('.row.agent', { hasText: 'all done' }).nth(1).waitFor(WAIT);
      assert.equal(await form(page).count(), 0, 'the question is gone in the tab that did not answer');
      const texts = (p: Page) => rows(p).allTextContents();
      assert.deepEqual(await texts(page), await texts(other), 'both tabs show the same rows');
    } finally {
      await other.close();
    }
  });

  it("shows a task-less turn's work and its failure in the owner's browser", async () => {
    const alice = new DaemonClient({ url: daemon.url, token: ALICE_TOKEN });
    await page.goto(`${daemon.url}/ui/c/side`);
    await page.getByText('● live').waitFor(WAIT);
    await alice.send('tell the side', { contextId: 'main', wait: false });
    // Before, a turn without a task reached only the operator's feed: alice saw nothing until its reply.
    // Generous: the delivery waits for the first turn's model call and tool round (once slower than 20 s under load).
    await page.locator('.working', { hasText: 'thinking' }).waitFor({ timeout: 60_000 });
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.locator('.row.agent', { hasText: 'side done' }).waitFor(WAIT);
    await page.locator('.working').waitFor({ state: 'detached', ...WAIT });
    await page.goto(`${daemon.url}/ui/c/broken`);
    await page.getByText('● live').waitFor(WAIT);
    await alice.send('tell the broken side', { contextId: 'main2', wait: false });
    await transcript.locator('.row.error', { hasText: /^✗\s*failed/ }).waitFor(WAIT);
  });
});
