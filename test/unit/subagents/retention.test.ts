// Which ended subagent records are dropped (reference §5 item 4): by count, newest kept, and by age.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planPrune } from '../../../src/subagents/retention.js';
import { subagentRecord } from '../store/subagentBehaviour.js';

const HOUR = 3_600_000;

describe('planPrune', () => {
  const records = [
    subagentRecord({ handle: 'sub-1', status: 'completed', updated: 1_000 }),
    subagentRecord({ handle: 'sub-2', status: 'exhausted_steps', updated: 2_000 }),
    subagentRecord({ handle: 'sub-3', status: 'running', updated: 0 }),
    subagentRecord({ handle: 'sub-4', status: 'failed', updated: 3_000 }),
  ];

  it('keeps the newest ended records up to the count and never a live one', () => {
    assert.deepEqual(planPrune(records, { keep: 1, keepForMs: HOUR }, new Set(), 4_000), ['sub-2', 'sub-1']);
    assert.deepEqual(planPrune(records, { keep: 10, keepForMs: HOUR }, new Set(), 4_000), []);
  });

  it('drops ended records older than keep_for, and never one whose worker is still exiting', () => {
    const now = 2_500 + HOUR;
    assert.deepEqual(planPrune(records, { keep: 10, keepForMs: HOUR }, new Set(), now), ['sub-2', 'sub-1']);
    assert.deepEqual(planPrune(records, { keep: 10, keepForMs: HOUR }, new Set(['sub-1']), now), ['sub-2']);
  });

  it('never drops an ended caller while a subagent below it is live, nor the callers above that one', () => {
    const by = (subagent: string | null) => ({ ctx: 'root', principal: 'operator', event: 'ev1', subagent, depth: 1 });
    const tree = [
      subagentRecord({ handle: 'sub-1', status: 'completed', updated: 1_000 }),
      subagentRecord({ handle: 'sub-2', status: 'failed', updated: 1_100, requested_by: by('sub-1') }),
      subagentRecord({ handle: 'sub-3', status: 'running', updated: 1_200, requested_by: by('sub-2') }),
      subagentRecord({ handle: 'sub-4', status: 'completed', updated: 1_300 }),
    ];
    // Premise: keep 0 drops every ended record once nothing below them lives.
    const settled = tree.map((r) => (r.handle === 'sub-3' ? { ...r, status: 'completed' as const } : r));
    assert.deepEqual(planPrune(settled, { keep: 0, keepForMs: HOUR }, new Set(), 2_000).sort(), [
      'sub-1',
      'sub-2',
      'sub-3',
      'sub-4',
    ]);
    assert.deepEqual(planPrune(tree, { keep: 0, keepForMs: HOUR }, new Set(), 2_000), ['sub-4']);
  });
});
