// Pure plan operations behind plan.* (reference §2.3, §9.5).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPlan, findPlanItem, type PlanResult, settleBound, updatePlan } from '../../../src/context/planOps.js';
import type { Plan } from '../../../src/domain/plan.js';

function planOf(result: PlanResult): Plan {
  assert.ok(result.ok, result.ok ? '' : result.error);
  return result.plan;
}

function errorOf(result: PlanResult): string {
  assert.equal(result.ok, false);
  return result.ok ? '' : result.error;
}

const base = () => planOf(createPlan('ship', ['write', { title: 'test', detail: 'unit' }, 'deploy'], 10, 5));
const ids = (plan: Plan) => plan.items.map((i) => i.id);

describe('createPlan', () => {
  it('numbers pending items from 1 and sets next_id', () => {
    const plan = base();
    assert.deepEqual(plan, {
      goal: 'ship',
      items: [
        { id: 1, title: 'write', status: 'pending', updated: 10 },
        { id: 2, title: 'test', detail: 'unit', status: 'pending', updated: 10 },
        { id: 3, title: 'deploy', status: 'pending', updated: 10 },
      ],
      next_id: 4,
      created: 10,
      updated: 10,
    });
  });

  it('refuses more than maxItems items', () => {
    assert.match(errorOf(createPlan('g', ['a', 'b', 'c'], 0, 2)), /at most 2 items/);
  });

  it('refuses a blank goal or a blank title', () => {
    assert.match(errorOf(createPlan('  ', ['a'], 0, 5)), /goal/);
    assert.match(errorOf(createPlan('g', ['a', ' '], 0, 5)), /item 2 has an empty title/);
  });

  it('accepts an empty checklist', () => {
    assert.deepEqual(planOf(createPlan('g', [], 0, 5)).items, []);
  });
});

describe('updatePlan', () => {
  it('edits an item by id', () => {
    const before = base();
    const after = planOf(updatePlan(before, { item: 2, status: 'in_progress', note: 'half' }, 20, 5));
    assert.deepEqual(after.items[1], {
      id: 2,
      title: 'test',
      detail: 'unit',
      status: 'in_progress',
      note: 'half',
      updated: 20,
    });
    assert.equal(after.updated, 20);
    assert.equal(before.items[1]?.status, 'pending', 'the input plan is not mutated');
  });

  it('edits an item by title, exact or case-insensitive', () => {
    const after = planOf(updatePlan(base(), { item: 'Deploy', status: 'done' }, 20, 5));
    assert.equal(after.items[2]?.status, 'done');
    const renamed = planOf(updatePlan(base(), { item: 'write', title: 'draft', detail: 'first pass' }, 20, 5));
    assert.equal(renamed.items[0]?.title, 'draft');
    assert.equal(renamed.items[0]?.detail, 'first pass');
  });

  it('accepts an id given as a string', () => {
    assert.equal(planOf(updatePlan(base(), { item: '3', status: 'skipped' }, 20, 5)).items[2]?.status, 'skipped');
  });

  it('clears a note or detail given as an empty string', () => {
    const after = planOf(updatePlan(base(), { item: 2, detail: '' }, 20, 5));
    assert.equal('detail' in (after.items[1] ?? {}), false);
  });

  it('refuses an unknown id or title, naming the known ids', () => {
    assert.equal(
      errorOf(updatePlan(base(), { item: 9, status: 'done' }, 20, 5)),
      'no plan item with id 9 (ids are 1, 2, 3)',
    );
    assert.match(errorOf(updatePlan(base(), { item: 'nope', status: 'done' }, 20, 5)), /no plan item "nope"/);
  });

  it('refuses an edit without an item and an item without an edit', () => {
    assert.match(errorOf(updatePlan(base(), { status: 'done' }, 20, 5)), /need item/);
    assert.match(errorOf(updatePlan(base(), { item: 1 }, 20, 5)), /without a change/);
    assert.match(errorOf(updatePlan(base(), {}, 20, 5)), /nothing to update/);
  });

  it('inserts after an item with the next id', () => {
    const after = planOf(updatePlan(base(), { insert: { title: 'lint', after: 1 } }, 20, 5));
    assert.deepEqual(ids(after), [1, 4, 2, 3]);
    assert.deepEqual(after.items[1], { id: 4, title: 'lint', status: 'pending', updated: 20 });
    assert.equal(after.next_id, 5);
  });

  it('inserts at the end without after, and after an item named by title', () => {
    assert.deepEqual(ids(planOf(updatePlan(base(), { insert: { title: 'x' } }, 20, 5))), [1, 2, 3, 4]);
    assert.deepEqual(ids(planOf(updatePlan(base(), { insert: { title: 'x', after: 'test' } }, 20, 5))), [1, 2, 4, 3]);
  });

  it('refuses an insert after an unknown item', () => {
    assert.match(
      errorOf(updatePlan(base(), { insert: { title: 'x', after: 7 } }, 20, 5)),
      /insert\.after: no plan item/,
    );
  });

  it('refuses an insert beyond maxItems', () => {
    assert.match(errorOf(updatePlan(base(), { insert: { title: 'x' } }, 20, 3)), /at most 3 items/);
  });

  it('reorders by a full permutation of ids', () => {
    assert.deepEqual(ids(planOf(updatePlan(base(), { reorder: [3, 1, 2] }, 20, 5))), [3, 1, 2]);
  });

  it('refuses a reorder with an unknown, repeated or missing id', () => {
    assert.match(errorOf(updatePlan(base(), { reorder: [3, 1, 9] }, 20, 5)), /no plan item with id 9/);
    assert.match(errorOf(updatePlan(base(), { reorder: [3, 3, 1] }, 20, 5)), /listed twice/);
    assert.match(errorOf(updatePlan(base(), { reorder: [3, 1] }, 20, 5)), /every item id exactly once/);
  });

  it('applies edit, insert and reorder together, in that order', () => {
    const after = planOf(
      updatePlan(base(), { item: 1, status: 'done', insert: { title: 'x' }, reorder: [4, 1, 2, 3] }, 20, 5),
    );
    assert.deepEqual(ids(after), [4, 1, 2, 3]);
    assert.equal(after.items[1]?.status, 'done');
  });

  it('refuses the whole update when one part is invalid', () => {
    const before = base();
    errorOf(updatePlan(before, { item: 1, status: 'done', reorder: [1] }, 20, 5));
    assert.equal(before.items[0]?.status, 'pending');
  });
});

describe('findPlanItem', () => {
  it('prefers an exact title over a numeric id', () => {
    const plan = planOf(createPlan('g', ['2', 'b'], 0, 5));
    assert.equal(findPlanItem(plan.items, '2'), 0);
    assert.equal(findPlanItem(plan.items, 2), 1);
    assert.equal(findPlanItem(plan.items, 'zzz'), -1);
  });
});

describe('settleBound', () => {
  const bound = () => {
    const one = planOf(updatePlan(base(), { item: 1, bind: { subagent: 'sub-1' } }, 20, 5));
    return planOf(updatePlan(one, { item: 'deploy', bind: { subagent: 'sub-2' } }, 21, 5));
  };

  it('binds an item with plan.update, and settles only the items bound to the subagent that ended', () => {
    const plan = bound();
    assert.deepEqual(plan.items[0]?.bound, { subagent: 'sub-1' });
    const done = settleBound(plan, 'sub-1', true, 'subagent sub-1 completed', 30);
    assert.deepEqual(
      done?.items.map((i) => [i.status, i.note ?? null, i.bound ?? null]),
      [
        ['done', 'subagent sub-1 completed', null],
        ['pending', null, null],
        ['pending', null, { subagent: 'sub-2' }],
      ],
    );
    assert.equal(done?.updated, 30);
  });

  it('blocks the item when the subagent did not complete, and answers null when nothing is bound to it', () => {
    const blocked = settleBound(bound(), 'sub-2', false, 'subagent sub-2 failed: boom', 30);
    assert.deepEqual([blocked?.items[2]?.status, blocked?.items[2]?.note], ['blocked', 'subagent sub-2 failed: boom']);
    assert.equal(settleBound(bound(), 'sub-9', true, 'x', 30), null);
    assert.equal(settleBound(base(), 'sub-1', true, 'x', 30), null);
  });
});
