// Where the client subcommands find the daemon (issue 18 item 2): flags, then AGENTD_URL/AGENTD_TOKEN, then the
// local config compiled by compileConfig (its secrets resolved, a wildcard listen reached on loopback). A config
// that does not compile, a missing or a malformed endpoint is one line on stderr and exit 2.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import type { Daemon } from '../daemon.js';
import { startDaemon } from '../daemon.js';
import { runAgentd, tempStateDir } from '../harness.js';

const OPERATOR_TOKEN = 'op-token-0123456789abcdef0123456789';
const DEAD_URL = 'http://127.0.0.1:9';

describe('agentd client endpoint', { timeout: 120_000 }, () => {
  let daemon: Daemon;
  let model: ScriptedModel;
  let dir: string;
  /** A client-side config naming the daemon as an operator would write it: wildcard listen, the token a secret. */
  let clientConfig: string;
  const principals = [
    '  principals:',
    '    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}',
  ];

  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'ok' }] });
    const yaml = ['a2a:', '  listen: http://127.0.0.1:0', ...principals, 'intelligence:', `  endpoints: ${model.url}`];
    dir = tempStateDir();
    daemon = await startDaemon(dir, `${yaml.join('\n')}\n`, { OPERATOR_TOKEN });
    const port = new URL(daemon.url).port;
    clientConfig = join(dir, 'client.yaml');
    const client = [
      'a2a:',
      `  listen: http://0.0.0.0:${port}`,
      ...principals,
      'intelligence:',
      `  endpoints: ${model.url}`,
    ];
    writeFileSync(clientConfig, `${client.join('\n')}\n`);
  });
  after(async () => {
    await daemon.stop();
    await model.close();
  });

  it('takes the URL and the operator token from --config, its secret resolved', async () => {
    const run = await runAgentd(['status', '--json', '--config', clientConfig], { env: { OPERATOR_TOKEN } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { paused: boolean }).paused, false);
    // The premise: the same call without a token is refused, so the config's token is what let it through (the
    // raw YAML holds only `{{secret:OPERATOR_TOKEN}}`, which the daemon would refuse too).
    const bare = await runAgentd(['status', '--url', daemon.url]);
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /401|credential|token/i);
  });

  it('prefers flags to the environment, and the environment to the config', async () => {
    const env = { OPERATOR_TOKEN, AGENTD_URL: DEAD_URL };
    const flagWins = await runAgentd(['status', '--url', daemon.url, '--config', clientConfig], { env });
    assert.equal(flagWins.code, 0, flagWins.stderr);
    const envWins = await runAgentd(['status', '--config', clientConfig], { env });
    assert.equal(envWins.code, 1, 'AGENTD_URL (a dead port) was taken over the config');
    assert.match(envWins.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/);
    const badToken = await runAgentd(['status', '--config', clientConfig], {
      env: { OPERATOR_TOKEN, AGENTD_TOKEN: 'not-the-token-0123456789abcdef' },
    });
    assert.equal(badToken.code, 1, 'AGENTD_TOKEN was taken over the config');
  });

  it("sends the config's operator token only to the config's own listener", async () => {
    // Another server: what a --url elsewhere would receive. The first case shows the token does go to the config's
    // own listener; the old resolution sent it here too.
    const seen: unknown[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"no"}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const run = await runAgentd(['status', '--url', elsewhere, '--config', clientConfig], {
        env: { OPERATOR_TOKEN },
      });
      assert.equal(run.code, 1);
      assert.ok(seen.length > 0, 'premise: the client did call the other server');
      assert.ok(
        seen.every((h) => h === undefined),
        `no Authorization header went elsewhere: ${seen.length}`,
      );
      const viaEnv = await runAgentd(['status', '--config', clientConfig], {
        env: { OPERATOR_TOKEN, AGENTD_URL: elsewhere },
      });
      assert.equal(viaEnv.code, 1);
      assert.ok(
        seen.every((h) => h === undefined),
        'nor with AGENTD_URL',
      );
    } finally {
      other.close();
    }
  });

  it('reads only the listener keys: an unset model secret is no error for a client', async () => {
    const withModelKey = join(dir, 'model-key.yaml');
    const port = new URL(daemon.url).port;
    const text = [
      'a2a:',
      `  listen: http://127.0.0.1:${port}`,
      ...principals,
      'intelligence:',
      '  token: "{{secret:MODEL_KEY}}"',
    ];
    writeFileSync(withModelKey, `${text.join('\n')}\n`);
    const run = await runAgentd(['status', '--json', '--config', withModelKey], { env: { OPERATOR_TOKEN } });
    assert.equal(run.code, 0, run.stderr);
    // The premise: the daemon itself would refuse this config for its unset model secret.
    const daemonRun = await runAgentd(['--validate-config', '--config', withModelKey], { env: { OPERATOR_TOKEN } });
    assert.equal(daemonRun.code, 2);
    assert.match(daemonRun.stderr, /MODEL_KEY/);
  });

  it('a config that does not compile is one line and exit 2, before any call', async () => {
    const missingSecret = await runAgentd(['status', '--config', clientConfig]);
    assert.equal(missingSecret.code, 2);
    assert.match(missingSecret.stderr, /^agentd status: --config .*client\.yaml: .*'OPERATOR_TOKEN' not set/);
    assert.equal(missingSecret.stderr.trim().split('\n').length, 1, missingSecret.stderr);
    const typo = join(dir, 'typo.yaml');
    writeFileSync(typo, 'a2a:\n  listn: http://127.0.0.1:1\n');
    const unknown = await runAgentd(['send', 'hi', '--config', typo]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /typo\.yaml:2.*a2a\.listn/);
    assert.equal(unknown.stderr.trim().split('\n').length, 1, unknown.stderr);
  });

  it('a missing or malformed endpoint is one line and exit 2', async () => {
    const none = await runAgentd(['tasks']);
    assert.equal(none.code, 2);
    assert.match(
      none.stderr,
      /^agentd tasks: no daemon to talk to: pass --url URL, set AGENTD_URL, or --config FILE\n$/,
    );
    const notUrl = await runAgentd(['tasks'], { env: { AGENTD_URL: 'localhost-8420' } });
    assert.equal(notUrl.code, 2);
    assert.match(notUrl.stderr, /^agentd tasks: AGENTD_URL "localhost-8420": not a URL/);
    const ftp = await runAgentd(['tasks', '--url', 'ftp://127.0.0.1:21']);
    assert.equal(ftp.code, 2);
    assert.match(ftp.stderr, /--url "ftp:\/\/127\.0\.0\.1:21": expected an http/);
    const noListen = join(dir, 'nolisten.yaml');
    writeFileSync(noListen, `intelligence:\n  endpoints: ${model.url}\n`);
    const noTarget = await runAgentd(['tasks', '--config', noListen]);
    assert.equal(noTarget.code, 2);
    assert.match(noTarget.stderr, /nolisten\.yaml: no a2a\.listen to reach/);
  });
});
