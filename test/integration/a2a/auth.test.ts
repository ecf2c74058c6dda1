// Principals over the wire: bearer tokens with the official client, a foreign task that is only ever "not
// found", junk and missing tokens (HTTP 401); and an https listener with a2a.tls.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { A2aListener } from '../../../src/a2a/listener.js';
import { compileConfig } from '../../../src/config/compile.js';
import { DaemonError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/obs/log.js';
import { within } from '../wait.js';
import { FakeBackend } from './fakeBackend.js';
import {
  bearerFetch,
  clientFor,
  JSON_V1,
  type Running,
  rawRequest,
  rpc,
  startListener,
  userMessage,
} from './listenerHarness.js';

const PRINCIPALS = `
  principals:
    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}
    - {id: bob, role: user, match: {bearer: "{{secret:BOB_TOKEN}}"}, grants: [fetch]}
    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}
`;
const TOKENS = { ALICE_TOKEN: 'alice-token-1234', BOB_TOKEN: 'bob-token-5678ab', OPERATOR_TOKEN: 'op-token-9999abc' };

function held(text: string) {
  return {
    tenant: '',
    message: userMessage(text),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
    metadata: undefined,
  };
}

describe('A2aListener principals', () => {
  let running: Running;
  let alice: Client;
  let bob: Client;
  let operator: Client;

  before(async () => {
    running = await startListener(PRINCIPALS, TOKENS);
    const url = running.listener.url;
    [alice, bob, operator] = await within(
      Promise.all([
        clientFor(url, bearerFetch(TOKENS.ALICE_TOKEN)),
        clientFor(url, bearerFetch(TOKENS.BOB_TOKEN)),
        clientFor(url, bearerFetch(TOKENS.OPERATOR_TOKEN)),
      ]),
      5_000,
      'client discovery',
    );
  });
  after(() => running.close());

  it('each caller acts as its principal; the card declares the bearer scheme', async () => {
    const task = (await alice.sendMessage(held('from alice'))) as Task;
    assert.equal(task.metadata?.['agentd/principal'], 'user:alice');
    await bob.sendMessage(held('from bob'));
    const principals = running.backend.sent.map((s) => s.principal);
    assert.deepEqual(principals.at(-2), { id: 'user:alice', role: 'user', grants: [] });
    assert.deepEqual(principals.at(-1), { id: 'user:bob', role: 'user', grants: ['fetch'] });
    const card = await alice.getAgentCard();
    assert.deepEqual(Object.keys(card.securitySchemes), ['bearer']);
  });

  it("another principal's task is not found for GetTask, CancelTask and SubscribeToTask", async () => {
    const task = (await alice.sendMessage(held('private'))) as Task;
    await assert.rejects(bob.getTask({ tenant: '', id: task.id }), TaskNotFoundError);
    await assert.rejects(bob.cancelTask({ tenant: '', id: task.id, metadata: undefined }), TaskNotFoundError);
    const stream = bob.resubscribeTask({ tenant: '', id: task.id });
    await assert.rejects(stream.next(), TaskNotFoundError);
    const listed = await bob.listTasks({
      tenant: '',
      contextId: '',
      status: 0,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    assert.ok(listed.tasks.every((t) => t.metadata?.['agentd/principal'] === 'user:bob'));
    assert.equal(running.backend.tasks.get(task.id)?.state, 'working', 'the foreign cancel changed nothing');
    const seen = await operator.getTask({ tenant: '', id: task.id });
    assert.equal(seen.id, task.id);
  });

  it('a junk token and a missing token are HTTP 401 (-31401); the audit line never holds a token', async () => {
    const body = rpc('GetTask', { id: 'x' });
    const junk = await rawRequest(running.listener.url, body, { ...JSON_V1, Authorization: 'Bearer nope' });
    assert.equal(junk.status, 401);
    assert.equal((junk.json()['error'] as { code: number }).code, -31401);
    const none = await rawRequest(running.listener.url, body, JSON_V1);
    assert.equal(none.status, 401);
    const basic = await rawRequest(running.listener.url, body, { ...JSON_V1, Authorization: 'Basic YTpi' });
    assert.equal(basic.status, 401);
    const junkClient = await clientFor(running.listener.url, bearerFetch('nope'));
    await assert.rejects(junkClient.getTask({ tenant: '', id: 'x' }));
    const lines = JSON.stringify(running.events);
    for (const token of Object.values(TOKENS)) assert.ok(!lines.includes(token));
    assert.ok(running.events.some((e) => e['event'] === 'a2a.request' && e['outcome'] === 'unauthenticated'));
  });
});

/** GET (or POST `body`) over https, trusting the test's self-signed certificate. */
function httpsJson(url: string, path: string, body?: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const options = { method: body ? 'POST' : 'GET', headers: body ? JSON_V1 : {}, rejectUnauthorized: false };
    const req = request(new URL(path, url), options, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
      });
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('A2aListener over https', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-tls-'));
  let haveOpenssl = true;
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
  } catch {
    haveOpenssl = false;
  }

  function configFor(cert: string): ReturnType<typeof compileConfig> {
    const yaml = `a2a:\n  listen: https://127.0.0.1:0\n  tls: {cert: ${cert}, key: key.pem}\n`;
    writeFileSync(join(dir, 'agentd.yaml'), yaml);
    return compileConfig({ files: ['agentd.yaml'], env: {}, flags: {}, cwd: dir });
  }

  it('serves the card and JSON-RPC over TLS', { skip: !haveOpenssl && 'openssl not found' }, async () => {
    const config = configFor('cert.pem');
    assert.deepEqual(config.a2a.tls, { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') });
    const instance = { name: 'desk', version: '1' };
    const listener = await A2aListener.start({ config, backend: new FakeBackend(), log: silentLogger, instance });
    try {
      assert.match(listener.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const card = await httpsJson(listener.url, '/.well-known/agent-card.json');
      assert.equal(card['description'], 'agentd: a durable agent daemon');
      const reply = await httpsJson(listener.url, '/', rpc('GetTask', { id: 'nope' }));
      assert.deepEqual(reply['error'], { code: -32001, message: 'task not found' });
    } finally {
      await listener.close();
    }
  });

  it('a missing certificate file is a config error when the listener starts', async () => {
    const config = configFor('missing.pem');
    const start = A2aListener.start({
      config,
      backend: new FakeBackend(),
      log: silentLogger,
      instance: { name: 'x', version: '1' },
    });
    await assert.rejects(start, (err: unknown) => {
      assert.ok(err instanceof DaemonError);
      assert.equal(err.code, 'config_invalid');
      assert.equal(err.message, `a2a.tls.cert: cannot read ${JSON.stringify(join(dir, 'missing.pem'))} (ENOENT)`);
      return true;
    });
  });
});
