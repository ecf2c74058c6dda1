// A subagent's own subagent.run calls are keyed by its handle, its run and the call's index (reference §5 item
// 2): a warm session's second run starting a nested subagent gets a new one, not the first run's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { SUB } from './subagentParts.js';

const nested = { name: 'subagent.run', arguments: { instruction: 'nested', mode: 'async', output_contract: 'n' } };

describe('nested subagent.run call keys', () => {
  it("a warm session's second run starts its own nested subagent", async () => {
    // The warm child's own requests carry its messages unescaped; its caller's carry them inside tool arguments.
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'warm start', mode: 'warm' } }] },
        { delay_ms: 2_000, tool_calls: [{ name: 'subagent.send', arguments: { handle: 'sub-1', message: 'again' } }] },
        { delay_ms: 2_000, content: 'ok' },
      ],
      match: [
        { when_contains: 'Output contract:', content: 'nested done' },
        { when_contains: '"content":"again"', times: 1, tool_calls: [nested] },
        { when_contains: '"content":"warm start"', times: 1, tool_calls: [nested] },
        { when_contains: SUB, content: 'run answer' },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  wake_on: [a2a_message]\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      await waitUntil(() => rig.named('subagent.turn').length === 2, 10_000, 'both warm runs ended');
      const records = await rig.store.subagents.list();
      const children = records.filter((r) => r.requested_by.subagent === 'sub-1');
      // Premise: keyed by handle and attempt only (`sub-1.1#0` for both runs), the second run's call would find
      // the first run's child and this list would hold one nested record, not two.
      assert.deepEqual(
        children.map((r) => [r.handle, r.call_key, r.requested_by.depth]),
        [
          ['sub-2', 'sub-1.run1#0', 2],
          ['sub-3', 'sub-1.run2#0', 2],
        ],
      );
    } finally {
      await rig.close();
    }
  });
});
