// Ended subagent records are pruned past subagents.keep, in memory and in the store (reference §5 item 4):
// agentd keeps every record, so its registry only grows and limits.subagents.total finally refuses every spawn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { SUB, toolResults } from './subagentParts.js';

const run = (instruction: string) => ({ name: 'subagent.run', arguments: { instruction } });

describe('subagent record pruning', () => {
  it('keeps only the newest ended records, so total counts what is kept', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [run('one')] },
        { tool_calls: [run('two')] },
        { tool_calls: [run('three')] },
        { tool_calls: [{ name: 'subagent.list', arguments: {} }] },
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, content: 'done' }],
    };
    // total 2 with three sync runs in a row: the third passes only because the first record was pruned.
    const yaml = 'subagents:\n  keep: 1\nlimits:\n  subagents:\n    total: 2\n';
    const rig = await startRig(playbook, {}, { yaml });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [one, two, three, list] = toolResults(rig, 'root');
      for (const [result, handle] of [
        [one, 'sub-1'],
        [two, 'sub-2'],
        [three, 'sub-3'],
      ] as const) {
        assert.deepEqual(result?.content, { handle, status: 'completed', result: 'done', error: null });
      }
      const listed = (list?.content as { subagents?: Array<{ handle: string }> } | undefined)?.subagents ?? [];
      assert.deepEqual(
        listed.map((s) => s.handle),
        ['sub-3'],
      );
      await waitUntil(() => rig.named('subagent.pruned').length >= 2, 5_000, 'two prunes');
      assert.deepEqual(
        (await rig.store.subagents.list()).map((r) => r.handle),
        ['sub-3'],
      );
    } finally {
      await rig.close();
    }
  });
});
