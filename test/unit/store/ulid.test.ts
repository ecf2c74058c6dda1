// newUlid: shape, time prefix, and order within and across milliseconds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUlidSource, newUlid, ulidTime } from '../../../src/store/ulid.js';

const CROCKFORD = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$/;

describe('newUlid', () => {
  it('makes 26 Crockford base32 characters whose prefix encodes the time', () => {
    const id = newUlid();
    assert.match(id, CROCKFORD);
    assert.ok(Math.abs(ulidTime(id) - Date.now()) < 60_000, 'defaults to the clock');
    const source = createUlidSource();
    assert.equal(source(0).slice(0, 10), '0000000000');
    assert.equal(ulidTime(source(1_700_000_123_456)), 1_700_000_123_456);
    assert.equal(ulidTime(source(2 ** 48 - 1)), 2 ** 48 - 1);
  });

  it('sorts ids made in the same millisecond in the order they were made', () => {
    const now = 1_800_000_000_000;
    const source = createUlidSource();
    const ids = Array.from({ length: 1000 }, () => source(now));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.every((id) => ulidTime(id) === now));
  });

  it('sorts by time across milliseconds and stays ordered if the clock steps back', () => {
    const source = createUlidSource();
    const a = source(1_900_000_000_000);
    const b = source(1_900_000_000_001);
    const c = source(1_900_000_000_000);
    assert.ok(a < b && b < c, `${a} < ${b} < ${c}`);
    assert.equal(ulidTime(c), 1_900_000_000_001);
  });

  it('draws fresh randomness in a new millisecond', () => {
    const source = createUlidSource();
    const a = source(1_950_000_000_000);
    const b = source(1_950_000_000_001);
    assert.notEqual(a.slice(10), b.slice(10));
  });

  it('refuses a time outside 48 bits', () => {
    const source = createUlidSource();
    assert.throws(() => source(-1), RangeError);
    assert.throws(() => source(2 ** 48), RangeError);
    assert.throws(() => ulidTime('not-a-ulid!'), RangeError);
  });
});
