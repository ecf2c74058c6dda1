// Waiting on the shared store for another replica's write (the task and run cancels share it, review item 8).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readUntil } from '../../../src/store/readUntil.js';

describe('readUntil', () => {
  it('answers the first non-null read', async () => {
    let reads = 0;
    const found = await readUntil(async () => (++reads === 3 ? 'ended' : null), 5_000);
    assert.equal(found, 'ended');
    assert.equal(reads, 3);
  });

  it('answers null once the wait passed (it read at least once)', async () => {
    let reads = 0;
    let clock = 0;
    const found = await readUntil(
      async () => {
        reads++;
        clock += 1_000;
        return null;
      },
      1_500,
      () => clock,
    );
    assert.equal(found, null);
    assert.equal(reads, 2);
  });
});
