// Warm subagents over real processes (P-6): one run per injected message over one transcript, a note per run
// whatever agent.wake_on says, kill → cancelled at once with the reason; the last run's result is kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { notes, SUB, toolResults } from './subagentParts.js';

const call = (name: string, args: Record<string, unknown>, delay_ms = 0) => ({
  delay_ms,
  tool_calls: [{ name, arguments: args }],
});

describe('warm subagents (P-6)', () => {
  it('runs each send over the same transcript, notes every run, and ends cancelled on kill', async () => {
    const playbook: Playbook = {
      turns: [
        call('subagent.run', { instruction: 'warm start', mode: 'warm' }),
        call('subagent.send', { handle: 'sub-1', message: 'second message' }, 1_000),
        call('subagent.send', { handle: 'sub-1', message: 'third message' }, 1_000),
        call('subagent.kill', { handle: 'sub-1', reason: 'done' }, 1_000),
        call('subagent.status', { handle: 'sub-1' }),
        call('subagent.send', { handle: 'sub-1', message: 'too late' }, 500),
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, content: 'run answer' }],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  wake_on: [a2a_message]\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [, sent1, sent2, killed, status, late] = toolResults(rig, 'root');
      assert.deepEqual(sent1?.content, { ok: true, handle: 'sub-1' });
      assert.deepEqual(sent2?.content, { ok: true, handle: 'sub-1' });
      assert.deepEqual(killed?.content, { ok: true, handle: 'sub-1' });
      const seen = status?.content as { status?: string; error?: string } | undefined;
      assert.equal(seen?.status, 'cancelled', 'cancelled right after the kill');
      assert.equal(seen?.error, 'done');
      assert.equal(late?.content, 'subagent "sub-1" is not running');
      assert.equal(rig.named('subagent.turn').length, 3);
      await waitUntil(() => rig.named('subagent.result').length === 1, 10_000, 'the session closed');
      assert.equal(rig.named('subagent.result')[0]?.status, 'cancelled');
      const exit = rig.named('child.exit').find((e) => e.kind === 'subagent');
      assert.equal(exit?.code, 1);
      // Three run notes although wake_on leaves out subagent_result; no result note.
      const runNotes = notes(rig.sup.conversation('root')?.messages);
      assert.deepEqual(runNotes, Array(3).fill('subagent sub-1 finished a turn: run answer'));
      // One transcript: the third run's request still holds the first instruction and the second message.
      const subRequests = rig.model.requests.map((r) => JSON.stringify(r.body)).filter((b) => b.includes(SUB));
      assert.equal(subRequests.length, 3);
      assert.ok(['warm start', 'second message', 'third message'].every((t) => subRequests[2]?.includes(t)));
      // agentd overwrote the last run's result with null at the close (reference §5 item 3); it is kept here.
      const [record] = await rig.store.subagents.list();
      assert.equal(record?.result, 'run answer');
      assert.equal(record?.runs, 3);
    } finally {
      await rig.close();
    }
  });
});
