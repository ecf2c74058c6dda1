// Scoped steps and nested moves, pure (producers reference §2.8 Nested): ids resolve to body definitions, and a
// foreach opens at most its window, settles finished elements and decides its output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { siblingPrefix, stepDefAt } from '../../../src/workflows/nesting.js';
import { advanceNest } from '../../../src/workflows/nestMoves.js';
import { newRun } from '../../../src/workflows/runState.js';

const loaded = loadWorkflow({
  name: 'w',
  steps: {
    s: { kind: 'manual' },
    x: {
      kind: 'foreach',
      depends_on: 's',
      over: [],
      batch: 2,
      body: {
        p: { kind: 'parallel', branches: { a: { leaf: { kind: 'noop' } } } },
      },
    },
    f: { kind: 'finish', depends_on: 'x' },
  },
});
if (!loaded.ok) throw new Error(loaded.errors.join('; '));
const def = loaded.def;

describe('stepDefAt', () => {
  it('resolves top-level, body and branch ids, with the scoped id as the definition id', () => {
    assert.equal(stepDefAt(def, 'x')?.kind, 'foreach');
    assert.equal(stepDefAt(def, 'x[3].p')?.id, 'x[3].p');
    assert.equal(stepDefAt(def, 'x[3].p{a}.leaf')?.kind, 'noop');
    assert.equal(stepDefAt(def, 'x[3].p{zz}.leaf'), undefined);
    assert.equal(siblingPrefix('x[3].p{a}.leaf'), 'x[3].p{a}.');
    assert.equal(siblingPrefix('x'), '');
  });
});

describe('advanceNest', () => {
  it('opens up to the window, settles finished elements, then outputs results by position', () => {
    const origin = {
      id: 'r',
      startKey: 'k',
      node: 's',
      payload: null,
      inputs: {},
      principal: null,
      conversation: null,
    };
    const run: WorkflowRun = newRun(def, origin, 0);
    const nest = { items: [1, 2, 3], total: 3, next: 0, open: [], window: 2, results: [], errors: [] };
    Object.assign(run.steps['x'] ?? {}, { status: 'suspended', wait: { kind: 'nest', dueMs: null, nest } });
    advanceNest(run, 'x', 0);
    assert.deepEqual(nest.open, [0, 1]);
    assert.ok(run.steps['x[1].p'], 'element 1 opened');
    // The scheduler moves a nest only when no step is ready: element 1's step is running, element 0's is done.
    Object.assign(run.steps['x[0].p'] ?? {}, { status: 'done', output: 'a' });
    Object.assign(run.steps['x[1].p'] ?? {}, { status: 'running' });
    advanceNest(run, 'x', 0);
    assert.equal(run.steps['x[0].p'], undefined, 'the finished element is dropped');
    assert.deepEqual(nest.open, [1, 2]);
    for (const i of [1, 2]) Object.assign(run.steps[`x[${i}].p`] ?? {}, { status: 'done', output: i });
    const moved = advanceNest(run, 'x', 0);
    assert.deepEqual(moved.result, { type: 'done', output: ['a', 1, 2] });
  });
});
