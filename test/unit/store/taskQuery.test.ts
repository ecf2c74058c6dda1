// The task listing rules the stores share: limit normalisation, newest-first order, filters, event lookup.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareListing, compareTasks, selectTasks, taskLimit, taskOfEvent } from '../../../src/store/taskQuery.js';
import { taskRecord } from './storeFixtures.js';

describe('taskLimit', () => {
  it('floors, clamps negatives and non-finite values to 0', () => {
    assert.deepEqual([5, 2.9, 0, -1, Number.NaN, Number.POSITIVE_INFINITY].map(taskLimit), [5, 2, 0, 0, 0, 0]);
  });
});

describe('compareTasks', () => {
  it('orders by updated descending, then id descending in code point order', () => {
    const older = taskRecord({ id: 'b', updated: 1 });
    const newer = taskRecord({ id: 'a', updated: 2 });
    const tieHigh = taskRecord({ id: '\u{1F600}', updated: 2 });
    const tieLow = taskRecord({ id: '\uFFFF', updated: 2 });
    const sorted = [older, tieLow, newer, tieHigh].sort(compareTasks);
    assert.deepEqual(
      sorted.map((t) => t.id),
      [tieHigh.id, tieLow.id, newer.id, older.id],
    );
    assert.equal(compareTasks(older, older), 0);
  });
});

describe('compareListing', () => {
  it('orders by id descending alone: an update does not move a task', () => {
    const a = taskRecord({ id: '01A', updated: 9 });
    const b = taskRecord({ id: '01B', updated: 1 });
    assert.deepEqual(
      [a, b].sort(compareListing).map((t) => t.id),
      ['01B', '01A'],
    );
    assert.equal(compareListing(a, { ...a, updated: 10 }), 0);
  });
});

describe('selectTasks', () => {
  it('filters by principal (null = any) and context, sorts, then limits', () => {
    const tasks = [
      taskRecord({ id: '1', updated: 1 }),
      taskRecord({ id: '2', updated: 3, principal: 'bob' }),
      taskRecord({ id: '3', updated: 2, context_id: 'other' }),
    ];
    const ids = (f: Parameters<typeof selectTasks>[1]) => selectTasks(tasks, f).map((t) => t.id);
    assert.deepEqual(ids({ principal: null, limit: 5 }), ['3', '2', '1']);
    assert.deepEqual(ids({ principal: 'alice', limit: 5 }), ['3', '1']);
    assert.deepEqual(ids({ principal: 'alice', context_id: 'ctx-1', limit: 5 }), ['1']);
    assert.deepEqual(ids({ principal: null, limit: 1 }), ['3']);
    assert.deepEqual(ids({ principal: null, after: { id: '3' }, limit: 5 }), ['2', '1']);
    assert.deepEqual(ids({ principal: null, limit: -3 }), []);
  });
});

describe('taskOfEvent', () => {
  it('returns the newest task linked to the event, or null', () => {
    const old = taskRecord({ id: 'A', inbox_event: 'E', updated: 1 });
    const recent = taskRecord({ id: 'B', inbox_event: 'E', updated: 5 });
    assert.equal(taskOfEvent([old, recent], 'E')?.id, 'B');
    assert.equal(taskOfEvent([recent, old], 'E')?.id, 'B');
    assert.equal(taskOfEvent([old], 'X'), null);
  });
});
