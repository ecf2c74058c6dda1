// The web UI's one-time pairing code (issue 18 item 4, interfaces §2.2 and §5 case 8): a loopback daemon with no
// configured token prints a code at start; the browser signs in with it; a reused or wrong code is refused; wrong
// guesses lock pairing; `agentd pair` mints another; the code reaches neither the log after its use nor the store.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { runAgentd, tempStateDir } from '../harness.js';
import { launchBrowser } from './browser.js';

const WAIT = { timeout: 20_000 };

describe('web UI pairing codes', { timeout: 180_000 }, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let dir: string;
  let browser: BrowserContext;
  let page: Page;
  let printed: string;
  /** A sign-in as the page makes it: JSON from the daemon's own origin. */
  const pair = (code: string) =>
    fetch(`${daemon.url}/ui/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: daemon.url },
      body: JSON.stringify({ code }),
    });

  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'paired reply' }] });
    dir = tempStateDir();
    const yaml = ['a2a:', '  listen: http://127.0.0.1:0', 'intelligence:', `  endpoints: ${model.url}`, ''];
    daemon = await startDaemon(dir, yaml.join('\n'));
    await waitUntil(() => daemon.events.some((e) => e.event === 'ui.pairing_code'), 10_000, 'the code is printed');
    printed = String(daemon.events.find((e) => e.event === 'ui.pairing_code')?.code);
    browser = await launchBrowser();
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(20_000);
  });
  after(async () => {
    await browser?.close();
    await daemon?.stop();
    await model?.close();
  });

  it('signs the browser in with the printed code, once', async () => {
    assert.match(printed, /^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    await page.goto(`${daemon.url}/ui`);
    // The premise: with no a2a.principals there is no token a browser could sign in with.
    await page.getByLabel('Access token').fill('any-token-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'sign-in refused' }).waitFor(WAIT);
    await page.getByLabel('Pairing code').fill(printed.toLowerCase());
    await page.getByRole('button', { name: 'Pair' }).click();
    await page.getByText('● live').waitFor(WAIT);
    assert.equal(await page.locator('.who').textContent(), 'operator');
    const [cookie] = await browser.cookies();
    assert.equal(cookie?.httpOnly, true);
    await page.getByLabel('Message').fill('hello after pairing');
    await page.getByLabel('Message').press('Enter');
    await page.locator('.row.agent', { hasText: 'paired reply' }).waitFor(WAIT);
    // Used once, the same code signs nobody in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Pairing code').fill(printed);
    await page.getByRole('button', { name: 'Pair' }).click();
    await page.getByRole('alert').filter({ hasText: 'unknown, used or expired pairing code' }).waitFor(WAIT);
    assert.equal((await pair(printed)).status, 401);
  });

  it('never logs a code after its use, and never stores one', async () => {
    const log = daemon.stderr();
    assert.equal(log.split(printed).length - 1, 1, 'the code appears once: where it was printed');
    assert.ok(
      daemon.events.some((e) => e.event === 'ui.paired' && e.principal === 'operator'),
      'the pairing itself is logged, by principal',
    );
    const minted = await runAgentd(['pair', '--json'], { env: { AGENTD_URL: daemon.url } });
    assert.equal(minted.code, 0, minted.stderr);
    const { code } = JSON.parse(minted.stdout) as { code: string };
    const files = readdirSync(dir).filter((f) => f !== 'agent.yaml' && statSync(join(dir, f)).isFile());
    assert.ok(files.length > 0, 'premise: the store is in the state directory');
    for (const file of files) {
      const bytes = readFileSync(join(dir, file)).toString('latin1');
      assert.ok(!bytes.includes(code.replace('-', '')) && !bytes.includes(code), `${file} holds no pairing code`);
    }
    assert.ok(!daemon.stderr().includes(code), 'a code minted by `agentd pair` is not in the log');
    const signed = await pair(code);
    assert.equal(signed.status, 200);
    assert.match(signed.headers.get('set-cookie') ?? '', /^agentd_session=[0-9a-f]{64}; .*HttpOnly; SameSite=Strict/);
  });

  it('locks pairing for a minute after five wrong codes', async () => {
    const minted = await runAgentd(['pair'], { env: { AGENTD_URL: daemon.url } });
    assert.equal(minted.code, 0, minted.stderr);
    const code = minted.stdout.trim();
    assert.match(minted.stderr, /single use, until .*\/ui/);
    // The reused code above already counted as wrong guesses: the lock comes by the fifth wrong one at the latest.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await pair('0000-0000')).status);
    assert.equal(statuses[0], 401, 'premise: a wrong code is refused before the lock');
    assert.equal(statuses.at(-1), 429, `locked after five wrong codes (${statuses.join(', ')})`);
    const locked = await pair(code);
    assert.equal(locked.status, 429);
    assert.match(((await locked.json()) as { error: string }).error, /too many pairing attempts; wait a minute/);
  });
});
