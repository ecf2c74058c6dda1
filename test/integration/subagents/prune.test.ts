// Ended subagent records are pruned past subagents.keep, in memory and in the store (reference §5 item 4):
// agentd keeps every record, so its registry only grows. limits.subagents.total counts the spawns of the last
// hour apart from the records (spawnLog.ts), so pruning frees no slot.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { SUB, toolResults } from './subagentParts.js';

const run = (instruction: string) => ({ name: 'subagent.run', arguments: { instruction } });

describe('subagent record pruning', () => {
  it('keeps only the newest ended records; total still counts the pruned spawn of the last hour', async () => {
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
    // total 2 with three sync runs in a row: the first record is pruned (keep 1) once the second ends, yet it
    // still counts as spawned within the hour. Premise: counted from the records kept, the third run passed.
    const yaml = 'subagents:\n  keep: 1\nlimits:\n  subagents:\n    total: 2\n';
    const rig = await startRig(playbook, {}, { yaml });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [one, two, three, list] = toolResults(rig, 'root');
      assert.deepEqual(one?.content, { handle: 'sub-1', status: 'completed', result: 'done', error: null });
      assert.deepEqual(two?.content, { handle: 'sub-2', status: 'completed', result: 'done', error: null });
      assert.equal(three?.content, 'subagent.run refused: 2 subagents spawned (limits.subagents.total = 2)');
      const listed = (list?.content as { subagents?: Array<{ handle: string }> } | undefined)?.subagents ?? [];
      assert.deepEqual(
        listed.map((s) => s.handle),
        ['sub-2'],
      );
      await waitUntil(() => rig.named('subagent.pruned').length >= 1, 5_000, 'a prune');
      assert.deepEqual(
        (await rig.store.subagents.list()).map((r) => r.handle),
        ['sub-2'],
      );
    } finally {
      await rig.close();
    }
  });
});

describe('pruning a caller with a live subagent below it', () => {
  it('keeps the ended caller while its nested child runs, and drops it once the child ends', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'outer', mode: 'async' } }] },
        { content: 'ok' },
      ],
      match: [
        { when_contains: '"content":"inner"', delay_ms: 2_500, content: 'inner done' },
        {
          when_contains: '"content":"outer"',
          times: 1,
          tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'inner', mode: 'async' } }],
        },
        { when_contains: SUB, content: 'outer done' },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: 'subagents:\n  keep: 0\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const ended = (h: string) => rig.named('subagent.result').some((e) => e.handle === h);
      await waitUntil(() => ended('sub-1'), 10_000, 'sub-1 ends');
      assert.equal(ended('sub-2'), false, 'premise: the nested child still runs when its caller ends');
      // keep 0 drops every ended record at once; sub-1 is held: sub-2's lineage (its ceiling, its owner) is there.
      assert.deepEqual(rig.named('subagent.pruned'), []);
      assert.deepEqual(
        (await rig.store.subagents.list()).map((r) => r.handle),
        ['sub-1', 'sub-2'],
      );
      await waitUntil(() => ended('sub-2'), 10_000, 'sub-2 ends');
      // sub-2's own record waits for the next prune (its worker was still exiting at its end).
      let stored = ['sub-1'];
      await waitUntil(
        () => {
          void rig.store.subagents.list().then((list) => (stored = list.map((r) => r.handle)));
          return !stored.includes('sub-1');
        },
        5_000,
        'sub-1 pruned from the store',
      );
    } finally {
      await rig.close();
    }
  });
});

describe('the spawn log across a restart', () => {
  it('still counts a spawn of the last hour whose record was pruned before the restart', async () => {
    const yaml = 'subagents:\n  keep: 0\nlimits:\n  subagents:\n    total: 1\n';
    const first = await startRig({ turns: [{ tool_calls: [run('one')] }, { content: 'ok' }], match: [] }, {}, { yaml });
    const dir = first.dir;
    try {
      assert.equal((await answer(first, 'root', 'go')).status, 'completed');
    } finally {
      await first.close();
    }
    const playbook: Playbook = {
      turns: [{ tool_calls: [run('two')] }, { content: 'ok' }],
      match: [{ when_contains: SUB, content: 'done' }],
    };
    const second = await startRig(playbook, {}, { yaml, dir });
    try {
      // Premise: no record is left to count (keep 0), so a log rebuilt from the records alone let `two` run.
      assert.deepEqual(await second.store.subagents.list(), []);
      assert.equal((await answer(second, 'root2', 'go')).status, 'completed');
      const [refused] = toolResults(second, 'root2');
      assert.equal(refused?.content, 'subagent.run refused: 1 subagents spawned (limits.subagents.total = 1)');
      assert.deepEqual(
        (await second.store.subagents.activity(0)).map((e) => e.handle),
        ['sub-1'],
      );
    } finally {
      await second.close();
    }
  });
  it('keeps the spawn-rate bucket spent across a restart (gate 6)', async () => {
    const yaml = 'limits:\n  subagents:\n    rate: "1/1h"\n';
    const playbook: Playbook = {
      turns: [{ tool_calls: [run('one')] }, { content: 'ok' }],
      match: [{ when_contains: SUB, content: 'done' }],
    };
    const first = await startRig(playbook, {}, { yaml });
    const dir = first.dir;
    try {
      assert.equal((await answer(first, 'root', 'go')).status, 'completed');
      assert.equal(first.named('subagent.spawn').length, 1);
    } finally {
      await first.close();
    }
    const second = await startRig(playbook, {}, { yaml, dir });
    try {
      assert.equal((await answer(second, 'root2', 'go')).status, 'completed');
      const [refused] = toolResults(second, 'root2');
      // Premise: the bucket was rebuilt full at every start, so a restart handed out a fresh burst of one.
      assert.equal(refused?.content, 'subagent.run refused: spawn rate exceeded (limits.subagents.rate)');
    } finally {
      await second.close();
    }
  });
});
