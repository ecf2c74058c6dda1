// human.to and human.reply_uri in a real runtime (compiled config, SQLite, the A2A listener, the official A2A client):
// the question is addressed to one configured principal — its task is theirs, and they answer it over A2A with
// their bearer token — and a real local HTTP server at `reply_uri` is POSTed the question and then its end, with
// `Idempotency-Key: <task>/<state>`. An unknown `to` fails the step; a reply_uri that refuses the question fails it
// and cancels the task.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { send } from '../../e2e/daemon.js';
import { bearerFetch, clientFor } from '../a2a/listenerHarness.js';
import { daemon, doneOf } from '../triggers/startRig.js';
import { waitUntil } from '../wait.js';

const ALICE = 'alice-token-5e1f0a9c77';
const dir = mkdtempSync(join(tmpdir(), 'agentd-humanto-'));
const notices: { path: string; key: string | undefined; body: Record<string, unknown> }[] = [];
let server: Server;
let base = '';

before(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString();
    });
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      notices.push({ path: req.url ?? '', key: typeof key === 'string' ? key : undefined, body: JSON.parse(text) });
      res.writeHead(req.url === '/refuse' ? 503 : 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const yaml = (to: string, path: string) => `a2a:
  principals:
    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}
workflows:
  - name: ship
    steps:
      s: {kind: once}
      h: {kind: human, depends_on: s, question: "Ship now?", to: ${to}, reply_uri: "${base}${path}", allow_private: true, timeout: 5m}
      f: {kind: finish, depends_on: h, output: "{{steps.h.output}}"}
`;

function sub(name: string): string {
  const d = join(dir, name);
  mkdirSync(d);
  return d;
}

describe('human.to and human.reply_uri', () => {
  it('asks the named principal, who answers over A2A; reply_uri hears the question and its end', async () => {
    notices.length = 0;
    const { runtime, url, events } = await daemon(sub('ok'), yaml('alice', '/notify'), { ALICE_TOKEN: ALICE });
    try {
      await waitUntil(() => notices.length === 1, 10_000, 'reply_uri is told of the question');
      const asked = notices[0];
      const taskId = String(asked?.body['task']);
      assert.deepEqual(asked?.body, {
        task: taskId,
        context: asked?.body['context'],
        run: asked?.body['run'],
        state: 'input-required',
        question: 'Ship now?',
        to: 'alice',
      });
      assert.equal(asked?.key, `${taskId}/input-required`);
      const task = await runtime.store.tasks.get(taskId);
      assert.equal(task?.principal, 'user:alice', 'the question is the named principal’s');
      const alice = await clientFor(url, bearerFetch(ALICE));
      await alice.sendMessage(send('yes, ship it', { taskId, contextId: task?.context_id ?? '' }));
      await waitUntil(() => doneOf(events, 'ship').length === 1, 10_000, 'the run ended');
      const run = await runtime.store.workflows.getRun(String(doneOf(events, 'ship')[0]?.['run']));
      assert.equal(run?.status, 'completed', String(run?.error));
      assert.equal(run?.output, 'yes, ship it');
      await waitUntil(() => notices.length === 2, 5_000, 'reply_uri is told of the end');
      assert.deepEqual(notices[1]?.body, {
        task: taskId,
        context: task?.context_id,
        run: run?.id,
        state: 'completed',
        answer: 'yes, ship it',
      });
      assert.equal(notices[1]?.key, `${taskId}/completed`);
    } finally {
      await runtime.stop();
    }
  });

  it('fails on an unknown principal, and on a reply_uri that refuses the question (its task canceled)', async () => {
    // A literal unknown `to` is refused at load (config/peerKeys.ts); one a template renders fails the step.
    const unknown = await daemon(sub('unknown'), yaml(`"CEL: 'mallory'"`, '/notify'), { ALICE_TOKEN: ALICE });
    try {
      await waitUntil(() => doneOf(unknown.events, 'ship').length === 1, 10_000, 'the run ended');
      const run = await unknown.runtime.store.workflows.getRun(String(doneOf(unknown.events, 'ship')[0]?.['run']));
      assert.equal(run?.error, 'step "h" failed: human: to "mallory" is not in a2a.principals');
    } finally {
      await unknown.runtime.stop();
    }
    notices.length = 0;
    const refused = await daemon(sub('refused'), yaml('alice', '/refuse'), { ALICE_TOKEN: ALICE });
    try {
      await waitUntil(() => doneOf(refused.events, 'ship').length === 1, 10_000, 'the run ended');
      const run = await refused.runtime.store.workflows.getRun(String(doneOf(refused.events, 'ship')[0]?.['run']));
      assert.equal(run?.error, 'step "h" failed: human: reply_uri: http status 503');
      const task = await refused.runtime.store.tasks.get(String(notices[0]?.body['task']));
      assert.equal(task?.state, 'canceled');
    } finally {
      await refused.runtime.stop();
    }
  });
});
