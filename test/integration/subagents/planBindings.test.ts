// Plan items bound to a subagent settle when it ends (reference §1.9 step 4, turn reference §2.3): `plan.update
// {item, bind: {subagent}}`, then the subagent's end marks the item done (completed) or blocked (any other end),
// with a note naming why, in the conversation and in the store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../../src/domain/plan.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { SUB, toolResults } from './subagentParts.js';

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
const filler = { content: 'unused' };

describe('plan items bound to subagents', () => {
  it('marks the item done when its subagent completes and blocked when it ends otherwise', async () => {
    const playbook: Playbook = {
      turns: [
        {
          tool_calls: [
            call('plan.create', { goal: 'g', items: ['count', 'spin'] }),
            call('subagent.run', { instruction: 'count', mode: 'async' }),
            call('subagent.run', { instruction: 'spin', mode: 'async', limits: { steps: 1 } }),
          ],
        },
        filler,
        filler,
        {
          tool_calls: [
            call('plan.update', { item: 1, bind: { subagent: 'sub-1' } }),
            call('plan.update', { item: 'spin', bind: { subagent: 'sub-2' } }),
          ],
        },
        filler,
        { tool_calls: [call('subagent.await', { handle: 'sub-1' }), call('subagent.await', { handle: 'sub-2' })] },
        filler,
        { content: 'ok' },
      ],
      match: [
        // Slow enough that both are bound before either ends.
        { when_contains: '"content":"count"', delay_ms: 1_500, content: 'counted' },
        { when_contains: '"content":"spin"', delay_ms: 1_500, tool_calls: [call('memory.get', { key: 'x' })] },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  tools:\n    on_demand: []\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const items = (plan: Plan | null | undefined) => plan?.items.map((i) => [i.status, i.note, i.bound ?? null]);
      const expected = [
        ['done', 'subagent sub-1 completed', null],
        ['blocked', 'subagent sub-2 exhausted_steps', null],
      ];
      // Premise: before, nothing settled them: both stayed pending and bound.
      assert.deepEqual(items(rig.sup.conversation('root')?.plan), expected);
      assert.deepEqual(
        // Both end after the same delay: in either order (under load sub-2's exhaustion can come first).
        rig
          .named('plan.updated')
          .flatMap((e) => (e.op === 'auto' ? [String(e.subagent)] : []))
          .sort(),
        ['sub-1', 'sub-2'],
      );
      const stored = await rig.store.conversations.get('root');
      assert.deepEqual(items(stored?.conversation.plan), expected);
    } finally {
      await rig.close();
    }
  });

  it('refuses to bind an unknown handle and settles at once an item bound to a subagent that already ended', async () => {
    const playbook: Playbook = {
      turns: [
        {
          tool_calls: [
            call('plan.create', { goal: 'g', items: ['count', 'ghost'] }),
            call('subagent.run', { instruction: 'count', mode: 'sync' }),
          ],
        },
        filler,
        {
          tool_calls: [
            call('plan.update', { item: 1, bind: { subagent: 'sub-1' } }),
            call('plan.update', { item: 2, bind: { subagent: 'sub-9' } }),
          ],
        },
        filler,
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, content: 'counted' }],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  tools:\n    on_demand: []\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const [, ran, bound, ghost] = toolResults(rig, 'root');
      assert.equal((ran?.content as { status?: string } | undefined)?.status, 'completed', 'sub-1 ended first');
      assert.equal(bound?.is_error ?? false, false);
      // Premise: before, both binds were accepted and neither item ever settled (sub-1 had no end left to come).
      assert.equal(ghost?.is_error, true);
      assert.equal(ghost?.content, 'plan.update: no such subagent "sub-9"');
      const items = rig.sup.conversation('root')?.plan?.items.map((i) => [i.status, i.note ?? null, i.bound ?? null]);
      assert.deepEqual(items, [
        ['done', 'subagent sub-1 completed', null],
        ['pending', null, null],
      ]);
    } finally {
      await rig.close();
    }
  });
});
