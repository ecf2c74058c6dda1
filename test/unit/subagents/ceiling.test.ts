// The subtree token ceiling (reference §5 item 24): a subagent's limits.tokens bounds its whole subtree's spend.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SubagentRecord } from '../../../src/domain/subagent.js';
import { ceilingHit, ceilingReason, chargeTree, lineage, remainder } from '../../../src/subagents/ceiling.js';
import { capToCeiling } from '../../../src/subagents/gateView.js';
import { subagentRecord } from '../store/subagentBehaviour.js';

function tree(): Map<string, SubagentRecord> {
  const at = (handle: string, above: string | null, maxTokens: number): SubagentRecord => {
    const base = subagentRecord({ handle });
    return {
      ...base,
      requested_by: { ...base.requested_by, subagent: above },
      spec: { ...base.spec, limits: { ...base.spec.limits, max_tokens: maxTokens } },
    };
  };
  const records = [at('sub-1', null, 1_000), at('sub-2', 'sub-1', 5_000), at('sub-3', 'sub-2', 5_000)];
  return new Map(records.map((r) => [r.handle, r]));
}

describe('the subtree token ceiling', () => {
  it('charges a spend to the spender and every subagent above it', () => {
    const records = tree();
    chargeTree(lineage(records, 'sub-3'), 400);
    chargeTree(lineage(records, 'sub-1'), 100);
    assert.deepEqual(
      [...records.values()].map((r) => r.tree_tokens),
      [500, 400, 400],
    );
    assert.deepEqual(
      lineage(records, 'sub-3').map((r) => r.handle),
      ['sub-3', 'sub-2', 'sub-1'],
    );
    assert.deepEqual(lineage(records, null), []);
  });

  it("bounds a deep child by the tightest ancestor's remainder, and names the ancestor once it is spent", () => {
    const records = tree();
    chargeTree(lineage(records, 'sub-3'), 700);
    // sub-3's own limit (5 000) and sub-2's are far off: sub-1's 1 000 leaves 300 for the whole subtree.
    assert.equal(remainder(lineage(records, 'sub-3')), 300);
    assert.equal(ceilingHit(lineage(records, 'sub-3')), null);
    chargeTree(lineage(records, 'sub-2'), 300);
    const hit = ceilingHit(lineage(records, 'sub-3'));
    assert.deepEqual(hit, { handle: 'sub-1', spent: 1_000, limit: 1_000 });
    assert.equal(
      ceilingReason(hit ?? { handle: '', spent: 0, limit: 0 }),
      'subtree token ceiling: sub-1 and its subagents spent 1000 of limits.tokens = 1000',
    );
    assert.equal(remainder(lineage(records, 'sub-3')), 0);
  });

  it("caps a new nested child's limits.tokens at the remainder; a turn's child keeps its own", () => {
    const records = tree();
    chargeTree(lineage(records, 'sub-2'), 600);
    const nested = subagentRecord({ handle: 'sub-4' });
    nested.requested_by = { ...nested.requested_by, subagent: 'sub-2' };
    nested.spec.limits.max_tokens = 2_000;
    assert.equal(capToCeiling(nested, records).spec.limits.max_tokens, 400);
    const top = subagentRecord({ handle: 'sub-5' });
    top.spec.limits.max_tokens = 2_000;
    assert.equal(capToCeiling(top, records).spec.limits.max_tokens, 2_000);
  });
});
