// listLiveKeys / isExpired / compareKeys: the memory-key rules every store shares.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareKeys, isExpired, listLiveKeys } from '../../../src/store/memoryKeys.js';

const live = (key: string) => ({ key, expires: null });

describe('isExpired', () => {
  it('expires strictly after the expiry time and never without one', () => {
    assert.equal(isExpired(100, 100), false);
    assert.equal(isExpired(100, 101), true);
    assert.equal(isExpired(null, Number.MAX_SAFE_INTEGER), false);
  });
});

describe('listLiveKeys', () => {
  it('skips keys before the prefix and stops at the first key past it', () => {
    let read = 0;
    function* entries() {
      for (const key of ['a', 'b/1', 'b/2', 'c', 'd']) {
        read += 1;
        yield live(key);
      }
    }
    assert.deepEqual(listLiveKeys(entries(), 'b/', 10, 0), { keys: ['b/1', 'b/2'], truncated: false });
    assert.equal(read, 4, 'did not read past "c"');
  });

  it('leaves out expired keys and reports truncation only when a live key remains', () => {
    const sorted = [live('k1'), { key: 'k2', expires: 5 }, live('k3')];
    assert.deepEqual(listLiveKeys(sorted, 'k', 2, 10), { keys: ['k1', 'k3'], truncated: false });
    assert.deepEqual(listLiveKeys(sorted, 'k', 1, 10), { keys: ['k1'], truncated: true });
    assert.deepEqual(listLiveKeys(sorted, 'k', 0, 10), { keys: [], truncated: true });
  });
});

describe('compareKeys', () => {
  it('orders by code point, as SQLite orders UTF-8 bytes', () => {
    const astral = '\u{1F600}';
    const highBmp = '\uFF21';
    assert.ok(highBmp > astral, 'premise: UTF-16 order puts the BMP character last');
    assert.equal(compareKeys(astral, highBmp), 1);
    assert.equal(compareKeys('ab', 'abc'), -1);
    assert.equal(compareKeys('abc', 'ab'), 1);
    assert.equal(compareKeys('same', 'same'), 0);
    assert.deepEqual(['b', 'a', astral, highBmp].sort(compareKeys), ['a', 'b', highBmp, astral]);
  });
});
