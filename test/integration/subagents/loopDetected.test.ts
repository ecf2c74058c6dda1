// A subagent that repeats the same tool call ends `loop_detected` (issue 15 item 2, reference §11.4): its run
// stops at the LOOP_REPEATS-th identical call and the sync caller's subagent.run answers that status.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOOP_REPEATS } from '../../../src/worker/loopGuard.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { SUB, toolResults } from './subagentParts.js';

describe('a subagent that loops', () => {
  it('ends loop_detected, and its sync caller gets that status', async () => {
    const repeat = { name: 'memory.get', arguments: { key: 'x' } };
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'spin', mode: 'sync' } }] },
        { content: 'ok' },
      ],
      // Every request of the child asks for the same call again; steps are ample, so only the loop guard ends it.
      match: [{ when_contains: SUB, tool_calls: [repeat] }],
    };
    const yaml = 'agent:\n  tools:\n    on_demand: []\n';
    const rig = await startRig(playbook, {}, { yaml });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [ran] = toolResults(rig, 'root');
      const content = ran?.content as { handle?: string; status?: string } | undefined;
      assert.equal(content?.status, 'loop_detected');
      assert.deepEqual(
        rig.named('subagent.result').map((e) => [e.handle, e.status]),
        [[content?.handle, 'loop_detected']],
      );
      // The guard stopped it before the repeating call ran again: fewer child requests than the step limit.
      const childRequests = rig.model.requests.filter((r) => JSON.stringify(r.body).includes(SUB)).length;
      assert.equal(childRequests, LOOP_REPEATS);
    } finally {
      await rig.close();
    }
  });
});
