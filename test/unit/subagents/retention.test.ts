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
});
