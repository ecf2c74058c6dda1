// The conversation cache's eviction plan: least recently used idle conversations leave first, only while the
// resident set is over its entry or byte limit; a busy one is never planned out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planEviction } from '../../../src/context/conversationCache.js';

const idle = (id: string, bytes = 10) => ({ id, bytes, evictable: true });

describe('planEviction', () => {
  it('evicts the least recently used first, down to the entry limit', () => {
    const resident = [idle('old'), idle('mid'), idle('new')];
    assert.deepEqual(planEviction(resident, { entries: 1, bytes: 1_000 }), ['old', 'mid']);
  });

  it('evicts down to the byte limit too', () => {
    const resident = [idle('a', 50), idle('b', 50), idle('c', 50)];
    assert.deepEqual(planEviction(resident, { entries: 10, bytes: 100 }), ['a']);
  });

  it('never plans out a busy conversation, and takes the next idle one instead', () => {
    const resident = [{ id: 'busy', bytes: 10, evictable: false }, idle('b'), idle('c')];
    assert.deepEqual(planEviction(resident, { entries: 2, bytes: 1_000 }), ['b']);
  });

  it('evicts nothing within the limits (and stays over them when only busy ones are left)', () => {
    assert.deepEqual(planEviction([idle('a'), idle('b')], { entries: 2, bytes: 20 }), []);
    const busy = [{ id: 'x', bytes: 10, evictable: false }];
    assert.deepEqual(planEviction(busy, { entries: 0, bytes: 0 }), []);
  });
});
