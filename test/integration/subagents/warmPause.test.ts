// A warm subagent under the instance's pause (reference §5 item 23): a message sent while paused is held by the
// worker, so its run's deadline is not armed until the resume. Premise: the desk armed the deadline at the send,
// and with limits.deadline 1 s the watchdog killed the held worker after deadline + grace (6 s).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEADLINE_GRACE_MS } from '../../../src/supervisor/children.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, type Rig, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { SUB } from './subagentParts.js';

const HELD = 'held message';
const SENT = { kind: 'ready', result: { ok: true, handle: 'sub-1' }, is_error: false };

/** How many model requests carried the held message. */
const seenHeld = (rig: Rig): number => rig.model.requests.filter((r) => JSON.stringify(r.body).includes(HELD)).length;

/** The held message was not seen while paused; on resume its run happens. */
async function resumeRunsHeld(rig: Rig): Promise<void> {
  assert.equal(seenHeld(rig), 0, 'the model did not see the held message');
  rig.sup.resume();
  await waitUntil(() => rig.named('subagent.turn').length === 2, 10_000, 'the held run ran after the resume');
  assert.equal(seenHeld(rig), 1);
}

describe('a warm subagent while the instance is paused', () => {
  it('holds a sent message without a deadline and runs it on resume', async () => {
    const playbook: Playbook = {
      turns: [
        {
          tool_calls: [
            { name: 'subagent.run', arguments: { instruction: 'warm start', mode: 'warm', limits: { deadline: 1 } } },
          ],
        },
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, content: 'run answer' }],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  wake_on: [a2a_message]\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      await waitUntil(() => rig.named('subagent.turn').length === 1, 10_000, 'the first run ended');
      const desk = rig.sup.subagents;
      rig.sup.pause();
      await waitUntil(() => (desk as unknown as { paused: boolean }).paused, 5_000, 'the desk saw the pause');
      const [record] = desk.seenBy();
      assert.ok(record);
      const caller = { conversation: 'root', principal: record.requested_by.principal, turnId: 't', depth: 0 };
      const sent = desk.forTurn(() => {}).send({ ...caller, kind: 'root' }, 'sub-1', HELD);
      assert.deepEqual(sent, SENT);
      // Past the watchdog's kill point for a 1 s deadline.
      await new Promise((resolve) => setTimeout(resolve, 1_000 + DEADLINE_GRACE_MS + 1_500));
      assert.equal(desk.seenBy()[0]?.status, 'running', 'the held worker was not killed');
      assert.equal(rig.named('subagent.result').length, 0);
      await resumeRunsHeld(rig);
    } finally {
      await rig.close();
    }
  });

  it('holds a subagent spawned while paused after its first run (premise: the pause frame reached only live ones)', async () => {
    const playbook: Playbook = { turns: [], match: [{ when_contains: SUB, content: 'run answer' }] };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  wake_on: [a2a_message]\n' });
    try {
      const desk = rig.sup.subagents;
      rig.sup.pause();
      await waitUntil(() => (desk as unknown as { paused: boolean }).paused, 5_000, 'the desk saw the pause');
      const caller = { conversation: 'root', principal: null, turnId: 't', depth: 0, kind: 'root' as const };
      const host = desk.forTurn(() => {});
      host.run(caller, { instruction: 'warm start', mode: 'warm' });
      await waitUntil(() => rig.named('subagent.turn').length === 1, 10_000, 'the first run ran');
      const sent = host.send(caller, 'sub-1', HELD);
      assert.deepEqual(sent, SENT);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await resumeRunsHeld(rig);
    } finally {
      await rig.close();
    }
  });
});
