// TaskBackend over a real supervisor: a blocking wait whose caller goes away leaves nothing behind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import { TaskBackend } from '../../../src/a2a/taskBackend.js';
import { createLogger } from '../../../src/obs/log.js';
import { startRig } from '../harness.js';
import { within } from '../wait.js';

const ALICE: Principal = { id: 'user:alice', role: 'user', grants: [] };

describe('TaskBackend.settled', () => {
  it('a blocking caller that goes away releases its watch; the answer is null', async () => {
    const rig = await startRig({ turns: [{ content: 'late', delay_ms: 60_000 }] });
    try {
      const backend = new TaskBackend({
        store: rig.store,
        log: createLogger({ level: 'error', write: () => {} }),
        now: Date.now,
        drain: () => {},
        supervisor: rig.sup,
        accept: (input) => Promise.resolve(rig.sup.accept(input)),
      });
      const task = await backend.send(ALICE, { text: 'take your time' });
      const caller = new AbortController();
      const waiting = backend.settled(ALICE, task.id, caller.signal);
      await new Promise((resolve) => setImmediate(resolve)); // the wait reads the task, then follows it
      assert.equal(backend.followedTasks, 1, 'premise: the wait follows the task');
      caller.abort();
      assert.equal(await within(waiting, 5_000, 'the abandoned wait'), null);
      assert.equal(backend.followedTasks, 0);
    } finally {
      await rig.close();
    }
  });
});

describe('TaskBackend steering commands', () => {
  it('mode and goal commands reach only the caller’s own conversations; goal.* is the operator’s', async () => {
    const rig = await startRig({ turns: [{ content: 'ok' }] });
    try {
      const backend = new TaskBackend({
        store: rig.store,
        log: createLogger({ level: 'error', write: () => {} }),
        now: Date.now,
        drain: () => {},
        supervisor: rig.sup,
        accept: (input) => Promise.resolve(rig.sup.accept(input)),
      });
      const BOB: Principal = { id: 'user:bob', role: 'user', grants: [] };
      const OPERATOR: Principal = { id: 'operator', role: 'operator', grants: [] };
      await backend.send(ALICE, { text: '', contextId: 'c1', command: { op: 'mode', args: { mode: 'plan' } } });
      assert.equal(rig.sup.conversation('user:alice/c1')?.controls?.mode, 'plan', 'premise: alice steers her own');
      // Bob naming alice's context id steers a conversation of his own; alice's is untouched.
      await backend.send(BOB, { text: '', contextId: 'c1', command: { op: 'mode', args: { mode: 'execute' } } });
      assert.equal(rig.sup.conversation('user:alice/c1')?.controls?.mode, 'plan');
      assert.equal(rig.sup.conversation('user:bob/c1')?.controls?.mode ?? 'execute', 'execute');
      await assert.rejects(
        backend.send(BOB, { text: '', contextId: 'c1', command: { op: 'goal.set', args: { objective: 'x' } } }),
        /for the operator/,
      );
      await assert.rejects(
        backend.send(OPERATOR, { text: '', contextId: 'c2', command: { op: 'mode', args: { mode: 'later' } } }),
        /mode: plan or execute/,
      );
    } finally {
      await rig.close();
    }
  });
});
