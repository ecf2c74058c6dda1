// Async subagents over real processes: P-2's gate texts, await/status/list/kill, a subagent ending exhausted_steps
// (terminal: its breadth slot is free and await answers at once, reference §5 item 11) and ownership.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { SUB, toolResults } from './subagentParts.js';

const run = (args: Record<string, unknown>) => ({ name: 'subagent.run', arguments: { mode: 'async', ...args } });

async function twoRuns(yaml: string): Promise<ReturnType<typeof toolResults>> {
  const playbook: Playbook = {
    turns: [
      { tool_calls: [run({ instruction: 'one' }), run({ instruction: 'two' })] },
      { content: 'x' },
      { content: 'ok' },
    ],
    match: [{ when_contains: SUB, delay_ms: 1_500, content: 'slow done' }],
  };
  const rig = await startRig(playbook, {}, { yaml });
  try {
    assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
    return toolResults(rig, 'root');
  } finally {
    await rig.close();
  }
}

describe('subagent.run gates (P-2)', () => {
  it('(a) breadth 1: the second async run is refused with the reference text', async () => {
    const [first, second] = await twoRuns('limits:\n  subagents:\n    breadth: 1\n');
    assert.deepEqual(first?.content, { handle: 'sub-1', status: 'running' });
    assert.equal(second?.is_error, true);
    assert.equal(second?.content, 'subagent.run refused: 1 subagents live (limits.subagents.breadth = 1)');
  });

  it('(b) rate 1/60s: the second is refused as over the spawn rate', async () => {
    const [first, second] = await twoRuns('limits:\n  subagents:\n    rate: 1/60s\n');
    assert.deepEqual(first?.content, { handle: 'sub-1', status: 'running' });
    assert.equal(second?.content, 'subagent.run refused: spawn rate exceeded (limits.subagents.rate)');
  });

  it('(c) depth 0: delegation is refused at once', async () => {
    const [first] = await twoRuns('limits:\n  subagents:\n    depth: 0\n');
    assert.equal(first?.content, 'subagent.run refused: delegation depth 0 reaches limits.subagents.depth = 0');
  });
});

describe('subagent lifecycle', () => {
  it('an exhausted_steps subagent frees its slot and await answers at once; status, list, kill; owners only', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [run({ instruction: 'loop forever', limits: { steps: 1 } })] },
        // Held so the first subagent has ended before the await is asked.
        { delay_ms: 1_500, tool_calls: [{ name: 'subagent.await', arguments: { handle: 'sub-1' } }] },
        { tool_calls: [run({ instruction: 'second' })] },
        { tool_calls: [{ name: 'subagent.status', arguments: { handle: 'sub-1' } }] },
        { tool_calls: [{ name: 'subagent.list', arguments: {} }] },
        { tool_calls: [{ name: 'subagent.kill', arguments: { handle: 'sub-2', reason: 'enough' } }] },
        { tool_calls: [{ name: 'subagent.kill', arguments: { handle: 'sub-2' } }] },
        { content: 'ok' },
      ],
      match: [
        {
          when_contains: 'mallory asks',
          times: 1,
          tool_calls: [
            { name: 'subagent.status', arguments: { handle: 'sub-1' } },
            { name: 'subagent.kill', arguments: { handle: 'sub-2' } },
          ],
        },
        { when_contains: 'mallory asks', content: 'seen' },
        { when_contains: SUB, times: 1, tool_calls: [{ name: 'memory.get', arguments: { key: 'k' } }] },
        { when_contains: SUB, delay_ms: 20_000, content: 'never' },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: 'limits:\n  subagents:\n    breadth: 1\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [ran, awaited, second, status, list, kill, again] = toolResults(rig, 'root');
      assert.deepEqual(ran?.content, { handle: 'sub-1', status: 'running' });
      const resultAt = rig.events.findIndex((e) => e.event === 'subagent.result' && e.handle === 'sub-1');
      const awaitAt = rig.events.findIndex((e) => e.event === 'tool.request' && e.tool === 'subagent.await');
      assert.ok(resultAt >= 0 && resultAt < awaitAt, 'premise: sub-1 had ended before the await');
      assert.deepEqual(awaited?.content, { handle: 'sub-1', status: 'exhausted_steps', result: null, error: null });
      // agentd counts exhausted_steps as live: this second run would be refused at breadth 1.
      assert.deepEqual(second?.content, { handle: 'sub-2', status: 'running' });
      assert.equal((status?.content as { status?: string } | undefined)?.status, 'exhausted_steps');
      const listed =
        (list?.content as { subagents: Array<{ handle: string; status: string }> } | undefined)?.subagents ?? [];
      assert.deepEqual(
        listed.map((s) => [s.handle, s.status]),
        [
          ['sub-1', 'exhausted_steps'],
          ['sub-2', 'running'],
        ],
      );
      assert.deepEqual(kill?.content, { ok: true, handle: 'sub-2' });
      assert.equal(again?.content, 'subagent "sub-2" is not running');
      const [record] = (await rig.store.subagents.list()).filter((r) => r.handle === 'sub-2');
      assert.equal(record?.status, 'cancelled');
      assert.equal(record?.error, 'enough');

      const other = await rig.sup.accept({ context_id: 'side', text: 'mallory asks', principal: 'mallory' });
      await rig.sup.outcomeOf(other.record.id);
      const [seen, killed] = toolResults(rig, 'side');
      assert.equal(seen?.content, 'no such subagent "sub-1"');
      assert.equal(killed?.content, 'subagent "sub-2" is not running');
    } finally {
      await rig.close();
    }
  });
});
