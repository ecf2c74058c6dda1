// `wait on: condition | message | webhook` and `a2a.wait` in a real daemon across a SIGKILL (producers reference §2.8,
// §2.11, §3.7): each wait armed in life 1 is still waiting in life 2 and ends there on a new delivery — memory and a
// signal for the condition, an A2A message on the waited conversation, an authenticated hit on the callback route
// (which life 2 opens again at the same path; agentd's callback routes do not survive).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { commandRequest } from '../integration/triggers/startRig.js';
import { waitUntil } from '../integration/wait.js';
import { artifactText, asTask, killAndRestart, send, startDaemon } from './daemon.js';
import { eventsNamed, tempStateDir } from './harness.js';

const YAML = `a2a:
  listen: http://127.0.0.1:0
intelligence:
  endpoints: http://127.0.0.1:9
workflows:
  - name: cond
    steps:
      s: {kind: once}
      w: {kind: wait, depends_on: s, on: condition, condition: "memory.gate == 'open' && has(signals.go)", timeout: 60s}
      f: {kind: finish, depends_on: w, output: "{{steps.w.output.satisfied}}"}
  - name: msg
    steps:
      s: {kind: once}
      w: {kind: wait, depends_on: s, on: message, conversation: ctx-msg, timeout: 60s}
      f: {kind: finish, depends_on: w, output: "{{steps.w.output.message.text}}"}
  - name: hook
    steps:
      s: {kind: once}
      w: {kind: wait, depends_on: s, on: webhook, timeout: 60s, webhook: {path: /hooks/cb-test, auth: {bearer: s3cret}, methods: [put], emit_url_to: cb}}
      f: {kind: finish, depends_on: w, output: "{{steps.w.output.body.ok}}"}
  - name: peerwait
    steps:
      s: {kind: once}
      w: {kind: a2a.wait, depends_on: s, conversation: ctx-peer, timeout: 60s}
      f: {kind: finish, depends_on: w, output: "{{steps.w.output.message.text}}"}
  - name: setter
    steps:
      s: {kind: a2a, command: setgate}
      m: {kind: memory.set, depends_on: s, key: gate, value: open}
      g: {kind: workflow.signal, depends_on: m, name: go}
      f: {kind: finish, depends_on: g}
`;

async function hit(url: string, token: string, method = 'PUT'): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/hooks/cb-test`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ok: 'yes' }),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

describe('condition, message and webhook waits across a crash', () => {
  it('each wait armed in life 1 ends in life 2 on a new delivery; the run finishes once', async () => {
    const dir = tempStateDir();
    const life1 = await startDaemon(dir, YAML);
    await waitUntil(() => eventsNamed(life1, 'wait.armed').length === 4, 20_000, 'four waits armed');
    await waitUntil(() => eventsNamed(life1, 'webhook.await.armed').length === 1, 10_000, 'the callback route open');
    const life2 = await killAndRestart(life1, dir, YAML);
    assert.equal(eventsNamed(life1, 'run.done').length, 0, 'premise: every run was waiting at the kill');
    try {
      await waitUntil(() => eventsNamed(life2, 'webhook.await.armed').length === 1, 10_000, 'the route reopened');
      assert.equal((await hit(life2.url, 'wrong')).status, 401, 'the callback checks its auth');
      assert.equal((await hit(life2.url, 's3cret', 'POST')).status, 405, 'the route keeps its methods after a restart');
      assert.deepEqual(await hit(life2.url, 's3cret'), { status: 200, body: { status: 'resumed', resumed: 1 } });
      const client = await clientFor(life2.url);
      const taken = asTask(await client.sendMessage(send('hello', { contextId: 'ctx-msg' })));
      assert.equal(taken.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(taken), 'delivered to 1 waiting workflow step');
      await client.sendMessage(send('pong', { contextId: 'ctx-peer' }));
      await client.sendMessage(commandRequest('setgate', {}, 'set-1'));
      await waitUntil(() => eventsNamed(life2, 'run.done').length === 5, 20_000, 'every run ended in life 2');
      assert.equal((await hit(life2.url, 's3cret')).status, 404, 'the route closed with its wait');
      assert.equal(eventsNamed(life2, 'run.start').length, 1, 'only the setter run started in life 2');
      assert.deepEqual(eventsNamed(life2, 'restore.step.replay'), [], 'the waits were resumed, not replayed');
    } finally {
      assert.equal(await life2.stop(), 0);
    }
    const store = new SqliteStore(dir);
    try {
      const runs = await store.workflows.listRuns({});
      const outcome = Object.fromEntries(runs.map((r) => [r.workflow, [r.status, r.output]]));
      assert.deepEqual(outcome, {
        cond: ['completed', true],
        msg: ['completed', 'hello'],
        hook: ['completed', 'yes'],
        peerwait: ['completed', 'pong'],
        setter: ['completed', null],
      });
      const hook = runs.find((r) => r.workflow === 'hook');
      const url = (hook?.vars['cb'] as { url?: string } | undefined)?.url;
      assert.match(String(url), /^http:\/\/127\.0\.0\.1:\d+\/hooks\/cb-test$/, 'emit_url_to wrote the callback URL');
    } finally {
      await store.close();
    }
  });
});
