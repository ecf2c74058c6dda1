// A step turn's token cap from its run (nodeKind.ts `turnTokenCap`, producers reference §2.8): the run's tokens
// left under `limits.tokens`, lowered to the step's own cap; none without either.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { turnTokenCap } from '../../../src/workflows/nodeKind.js';

const run = (cap: number | null, tokens?: number): WorkflowRun =>
  ({ definition: { limits: { tokens: cap } }, ...(tokens === undefined ? {} : { tokens }) }) as WorkflowRun;

describe('turnTokenCap', () => {
  it('is what the run has left, the step cap when smaller, at least 1, and none without a cap', () => {
    assert.deepEqual(turnTokenCap(run(100, 30)), { max_tokens: 70 });
    assert.deepEqual(turnTokenCap(run(100, 30), 50), { max_tokens: 50 });
    assert.deepEqual(turnTokenCap(run(100, 30), 500), { max_tokens: 70 });
    assert.deepEqual(turnTokenCap(run(100, 130)), { max_tokens: 1 });
    assert.deepEqual(turnTokenCap(run(null), 40), { max_tokens: 40 });
    assert.deepEqual(turnTokenCap(run(null)), {});
  });
});
