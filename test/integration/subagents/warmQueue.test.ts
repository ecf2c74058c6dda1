// A message sent to a warm subagent while it runs is queued; the run it starts is armed with its own deadline
// (reference §5 item 3). Premise: decrementing the queue before asking whether one waited left that run unarmed
// (deadlineAt null), so a hung queued run was never killed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LiveSubagent } from '../../../src/subagents/subagentRunner.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { SUB } from './subagentParts.js';

describe('a warm run started from the queue', () => {
  it('runs under a deadline', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'warm start', mode: 'warm' } }] },
        { tool_calls: [{ name: 'subagent.send', arguments: { handle: 'sub-1', message: 'queued message' } }] },
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, delay_ms: 2_000, content: 'run answer' }],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  wake_on: [a2a_message]\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const live = (rig.sup.subagents as unknown as { live: Map<string, LiveSubagent> }).live.get('sub-1');
      assert.ok(live, 'the warm subagent is alive');
      assert.equal(live.queued, 1, 'premise: the send arrived while the first run ran');
      await waitUntil(() => rig.named('subagent.turn').length === 1, 10_000, 'the first run ended');
      // The queued run is running now (its model answer takes 2 s): it must carry a deadline.
      assert.equal(live.queued, 0);
      assert.equal(live.running, true);
      assert.notEqual(live.child.handle.vitals.deadlineAt, null, 'the queued run is armed');
    } finally {
      await rig.close();
    }
  });
});
