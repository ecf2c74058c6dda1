// A sync subagent cancelled through its caller's A2A task (issue 15 acceptance): CancelTask on the task of the
// turn parked on subagent.run ends both worker processes within seconds, the caller's turn ends cancelled and the
// subagent's record says cancelled, with the reason.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { processGone, waitUntil } from '../integration/wait.js';
import { asTask, send, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

const SUB = 'You are a subagent of';

describe('CancelTask on a sync subagent caller', () => {
  let model: ScriptedModel | undefined;
  after(async () => model?.close());

  it('takes both processes down within seconds; the turn and the subagent end cancelled', async () => {
    model = await startScriptedModel({
      turns: [{ tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'take forever' } }] }, { content: 'x' }],
      match: [{ when_contains: SUB, delay_ms: 60_000, content: 'never' }],
    });
    const dir = tempStateDir();
    const daemon = await startDaemon(
      dir,
      `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`,
    );
    const named = (name: string) => daemon.events.filter((e) => e.event === name);
    try {
      const client = await clientFor(daemon.url);
      const task = asTask(await client.sendMessage(send('delegate', {}, true)));
      await waitUntil(() => named('subagent.spawn').length === 1, 20_000, 'the subagent spawned');
      const subPid = Number(named('subagent.spawn')[0]?.pid);
      const callerPid = Number(named('turn.spawn')[0]?.worker_pid);
      assert.ok(!processGone(subPid) && !processGone(callerPid), 'premise: the caller is parked on a live subagent');

      const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      // Each worker leads its own process group: the whole group is gone, not only its leader.
      await waitUntil(() => processGone(-subPid) && processGone(-callerPid), 10_000, 'both worker groups are gone');
      const done = () => named('turn.done').filter((e) => e.comp === 'supervisor' && e.ctx === task.contextId);
      await waitUntil(() => done().length === 1, 10_000, "the caller's turn folded");
      assert.equal(done()[0]?.status, 'cancelled');
      await waitUntil(() => named('subagent.result').length === 1, 10_000, 'the subagent ended');
      assert.equal(named('subagent.result')[0]?.status, 'cancelled');
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
    const store = new SqliteStore(dir);
    try {
      const [record] = await store.subagents.list();
      assert.equal(record?.status, 'cancelled');
      assert.equal(record?.error, "its caller's turn ended");
    } finally {
      await store.close();
    }
  });
});
