// The web UI's one-time pairing codes (issue 18 item 4, interfaces §2.2 and §5 case 8): pairing is off unless
// `a2a.pairing.enabled`; `agentd pair` mints a code the browser signs in with once; wrong guesses lock pairing; a
// code is printed at start only on a terminal and only with no principals; it reaches neither the log nor the
// store; a reload that drops the paired principal ends its session.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil, within } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { AGENTD_BIN, runAgentd, tempStateDir } from '../harness.js';
import { launchBrowser } from './browser.js';

const WAIT = { timeout: 20_000 };
const OPS = '    - {id: ops, role: operator, match: {bearer: ops-pairing-token-1}}';
const ALICE = '    - {id: alice, role: user, match: {bearer: alice-pairing-token-1}}';

describe('web UI pairing codes', { timeout: 240_000 }, () => {
  let model: ScriptedModel;
  const yaml = (a2a: string[]) =>
    ['a2a:', '  listen: http://127.0.0.1:0', ...a2a, 'intelligence:', `  endpoints: ${model.url}`, ''].join('\n');
  const PAIRING_ON = ['  pairing: {enabled: true}'];
  /** A sign-in as the page makes it: JSON from the daemon's own origin. */
  const pair = (daemon: Daemon, code: string) =>
    fetch(`${daemon.url}/ui/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: daemon.url },
      body: JSON.stringify({ code }),
    });
  const mint = async (daemon: Daemon, token?: string): Promise<string> => {
    const env = { AGENTD_URL: daemon.url, ...(token ? { AGENTD_TOKEN: token } : {}) };
    const minted = await runAgentd(['pair'], { env });
    assert.equal(minted.code, 0, minted.stderr);
    return minted.stdout.trim();
  };

  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'paired reply' }] });
  });
  after(async () => {
    await model?.close();
  });

  describe('a loopback daemon with no principals', () => {
    let daemon: Daemon;
    let dir: string;
    let browser: BrowserContext;
    let page: Page;
    before(async () => {
      dir = tempStateDir();
      daemon = await startDaemon(dir, yaml(PAIRING_ON));
      browser = await launchBrowser();
      page = browser.pages()[0] ?? (await browser.newPage());
      page.setDefaultTimeout(20_000);
    });
    after(async () => {
      await browser?.close();
      await daemon?.stop();
    });

    it('signs the browser in with a code from `agentd pair`, once', async () => {
      const code = await mint(daemon);
      assert.match(code, /^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
      await page.goto(`${daemon.url}/ui`);
      // The premise: with no a2a.principals there is no token a browser could sign in with.
      await page.getByLabel('Access token').fill('any-token-at-all');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'sign-in refused' }).waitFor(WAIT);
      await page.getByLabel('Pairing code').fill(code.toLowerCase());
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
      await page.getByLabel('Pairing code').fill(code);
      await page.getByRole('button', { name: 'Pair' }).click();
      await page.getByRole('alert').filter({ hasText: 'unknown, used or expired pairing code' }).waitFor(WAIT);
      assert.equal((await pair(daemon, code)).status, 401);
    });

    it('answers pairing.code in agentd shape, and never logs or stores a code', async () => {
      const minted = await runAgentd(['pair', '--json'], { env: { AGENTD_URL: daemon.url } });
      assert.equal(minted.code, 0, minted.stderr);
      const { pairing } = JSON.parse(minted.stdout) as { pairing: Record<string, unknown> };
      assert.deepEqual(Object.keys(pairing).sort(), ['code', 'expires_in_ms', 'role', 'sessions', 'url']);
      assert.equal(pairing.role, 'operator');
      assert.equal(pairing.url, `${daemon.url}/ui`);
      const code = String(pairing.code);
      const signed = await pair(daemon, code);
      assert.equal(signed.status, 200);
      const setCookie = signed.headers.get('set-cookie') ?? '';
      assert.match(setCookie, /^agentd_session=[0-9a-f]{64}\.\d+\.p[\w-]+; .*HttpOnly; SameSite=Strict; Max-Age=43200/);
      const session = setCookie.split(';')[0]?.slice('agentd_session='.length) ?? '';
      assert.ok(
        daemon.events.some((e) => e.event === 'interface.paired' && e.principal === 'operator'),
        'the pairing itself is logged, by principal',
      );
      const files = readdirSync(dir).filter((f) => f !== 'agent.yaml' && statSync(join(dir, f)).isFile());
      assert.ok(files.length > 0, 'premise: the store is in the state directory');
      for (const file of files) {
        const bytes = readFileSync(join(dir, file)).toString('latin1');
        assert.ok(!bytes.includes(code.replace('-', '')) && !bytes.includes(code), `${file} holds no pairing code`);
        assert.ok(!bytes.includes(session), `${file} holds no session cookie (only its hash)`);
      }
      assert.ok(!daemon.stderr().includes(code), 'a code is not in the log');
      assert.ok(!daemon.events.some((e) => String(e.event).includes('pairing_code')), 'no event carries a code');
    });
  });

  it('locks pairing for a minute after five wrong codes, and logs the refusal once while locked', async () => {
    const daemon = await startDaemon(tempStateDir(), yaml(PAIRING_ON));
    try {
      const code = await mint(daemon);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await pair(daemon, '0000-0000')).status);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429]);
      const locked = await pair(daemon, code);
      assert.equal(locked.status, 429);
      assert.match(((await locked.json()) as { error: string }).error, /too many pairing attempts; wait a minute/);
      const refusals = daemon.events.filter((e) => e.event === 'ui.pairing_refused');
      // Five wrong codes, then one line for the four refusals while locked.
      assert.equal(refusals.length, 6, JSON.stringify(refusals));
    } finally {
      await daemon.stop();
    }
  });

  it('is off by default: `agentd pair` fails with the reason and a code is refused', async () => {
    const daemon = await startDaemon(tempStateDir(), yaml([]));
    try {
      const minted = await runAgentd(['pair'], { env: { AGENTD_URL: daemon.url } });
      assert.notEqual(minted.code, 0);
      assert.match(minted.stderr, /pairing is off \(a2a\.pairing\.enabled\)/);
      const refused = await pair(daemon, '0000-0000');
      assert.equal(refused.status, 401);
      assert.match(((await refused.json()) as { error: string }).error, /pairing is off/);
    } finally {
      await daemon.stop();
    }
  });

  it('prints a start code on a terminal only when no principals are configured, never as an event', async () => {
    const bare = await startInTerminal(yaml(PAIRING_ON));
    const userOnly = await startInTerminal(yaml(['  principals:', ALICE, ...PAIRING_ON]));
    try {
      const line = /agentd: web UI pairing code ([0-9A-Z]{4}-[0-9A-Z]{4}) \(single use, 10 min\): (\S+)\/ui/;
      const printed = line.exec(bare.output());
      assert.ok(printed, `premise: with no principals a terminal gets the code:\n${bare.output()}`);
      assert.equal(bare.output().split(printed[1] ?? '?').length - 1, 1, 'the code appears once, on its own line');
      assert.ok(!/"code"/.test(bare.output()), 'no event field carries the code');
      assert.ok(!line.test(userOnly.output()), `a user-only config prints no code:\n${userOnly.output()}`);
    } finally {
      await Promise.all([bare.stop(), userOnly.stop()]);
    }
  });

  it('a reload that drops the paired principal ends its session at the next request', async () => {
    const dir = tempStateDir();
    const daemon = await startDaemon(dir, yaml(['  principals:', OPS, ALICE, ...PAIRING_ON]));
    try {
      const signed = await pair(daemon, await mint(daemon, 'ops-pairing-token-1'));
      assert.equal(signed.status, 200);
      const cookie = (signed.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const whoami = () => fetch(`${daemon.url}/ui/session`, { headers: { cookie } });
      // The premise: before the reload the session acts as the operator.
      assert.deepEqual(await (await whoami()).json(), { principal: 'operator', role: 'operator' });
      writeFileSync(join(dir, 'agent.yaml'), yaml(['  principals:', ALICE, ...PAIRING_ON]));
      daemon.child.kill('SIGHUP');
      await waitUntil(() => daemon.events.some((e) => e.event === 'config.reloaded'), 10_000, 'the reload');
      const after = await whoami();
      assert.equal(after.status, 401);
      assert.match(((await after.json()) as { error: string }).error, /paired principal operator is no longer/);
    } finally {
      await daemon.stop();
    }
  });
});

/** The built daemon under a pseudo-terminal (`script`), so its stderr is a TTY; output is what the terminal saw. */
async function startInTerminal(yamlText: string): Promise<{ output(): string; stop(): Promise<unknown> }> {
  const dir = tempStateDir();
  const file = join(dir, 'agent.yaml');
  writeFileSync(file, yamlText);
  const command = `exec ${process.execPath} ${AGENTD_BIN} --config ${file}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', AGENTD_STATE_DIR: dir, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'ignore'],
    detached: true,
  });
  const chunks: string[] = [];
  child.stdout?.on('data', (c: Buffer) => chunks.push(c.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const output = () => chunks.join('');
  await waitUntil(() => output().includes('"a2a.listen"'), 20_000, 'the daemon listens on a terminal');
  // The code line follows the listen event at once; give it a moment to cross the pty.
  await new Promise((r) => setTimeout(r, 300));
  return {
    output,
    stop: () => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      return within(exited, 30_000, 'the terminal daemon drains');
    },
  };
}
