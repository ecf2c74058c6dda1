// A launch's side effects wait for a started process (issue 13 item 1, docs/concepts/durability.md): a worker
// spawn that fails asynchronously (node reports EMFILE, ENOENT, … as an `error` event after `spawn` returned) must
// not count a turn on the conversation, log `turn.spawn` with worker_pid -1, or mark instruction changes as told.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startRig } from './harness.js';
import { within } from './wait.js';

describe('a worker spawn that fails after spawn() returned', () => {
  it('leaves the conversation turn count and turn.spawn untouched', async () => {
    // A binary that does not exist: spawn() returns a ChildProcess, then emits ENOENT; the same path EMFILE takes.
    // Premise: the launch counted the turn and logged turn.spawn {worker_pid: -1} before that error arrived.
    const missing = { execPath: '/nonexistent/agentd-node', args: [] };
    const rig = await startRig(
      { turns: [{ content: 'never asked' }] },
      {},
      {
        yaml: 'agent: {warm_workers: 0}\n',
        workerEntry: missing,
      },
    );
    try {
      const { record } = await rig.sup.accept({ context_id: 'c', text: 'hello', principal: 'operator' });
      const outcome = await within(rig.sup.outcomeOf(record.id), 20_000, 'the failed outcome');
      assert.equal(outcome.status, 'failed', 'a missing binary is not a transient cause: the turn fails');
      assert.deepEqual(rig.named('turn.spawn'), [], 'no turn.spawn for a process that never started');
      const exits = rig.named('child.exit');
      assert.equal(exits[0]?.spawn_error, 'ENOENT', 'premise: the spawn failed asynchronously, as EMFILE does');
      const [stored] = (await rig.store.conversations.load()).map((s) => s.conversation);
      assert.equal(stored?.turns, 0, 'the conversation counts no turn that never ran');
    } finally {
      await rig.close();
    }
  });
});
