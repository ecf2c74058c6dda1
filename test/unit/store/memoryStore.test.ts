// MemoryStore: the shared behaviour suite plus what only the in-memory store promises.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { openStore } from '../../../src/store/openStore.js';
import { describeStoreBehaviour } from './storeBehaviour.js';

describeStoreBehaviour('MemoryStore', async () => new MemoryStore());

describe('MemoryStore', () => {
  it('is opened by openStore for kind memory, at ":memory:", generation 1', async () => {
    const store = openStore({ kind: 'memory', path: '/nonexistent/ignored' });
    assert.equal(store.kind, 'memory');
    assert.equal(store.location, ':memory:');
    assert.equal(store.generation, 1);
    await store.close();
  });
});
