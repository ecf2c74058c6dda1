// The ordered commit queue, and the helpers that let the synchronous tick read the store: calls take effect in the
// order they were made even over a backend whose calls overlap; turn ids are reserved ahead, unique across opens.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { CommitQueue, orderedStore, settledWrites } from '../../../src/store/commitQueue.js';
import { MemoryKeyCache } from '../../../src/store/memoryKeyCache.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { SequenceBlock } from '../../../src/store/sequenceBlock.js';
import type { Store } from '../../../src/store/store.js';

/** A memory store whose every memory call waits `ms(n)` before it runs: calls overlap like a network backend's. */
function slowStore(ms: (call: number) => number): Store {
  const store = new MemoryStore();
  let calls = 0;
  const memory = store.memory;
  const later =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await delay(ms(calls++));
      return fn(...args);
    };
  return Object.assign(store, {
    memory: {
      ...memory,
      get: later(memory.get),
      set: later(memory.set),
      list: later(memory.list),
      delete: later(memory.delete),
      onChange: memory.onChange,
    },
  });
}

describe('CommitQueue', () => {
  it('runs operations one after another in the order asked, whatever each takes', async () => {
    const queue = new CommitQueue();
    const order: number[] = [];
    const runs = [30, 0, 10].map((ms, i) =>
      queue.run(async () => {
        await delay(ms);
        order.push(i);
        return i;
      }),
    );
    assert.deepEqual(await Promise.all(runs), [0, 1, 2]);
    assert.deepEqual(order, [0, 1, 2]);
  });

  it('goes on after a failed operation, which rejects only its own caller', async () => {
    const queue = new CommitQueue();
    const failed = queue.run(() => Promise.reject(new Error('disk full')));
    const next = queue.run(async () => 'ok');
    await assert.rejects(failed, /disk full/);
    assert.equal(await next, 'ok');
    await queue.settled();
    assert.equal(queue.size, 0);
  });
});

describe('orderedStore', () => {
  it('keeps writes and reads in call order over a backend whose calls overlap (the premise fails without it)', async () => {
    const first = (call: number) => (call === 0 ? 30 : 0); // the first write is the slow one
    const bare = slowStore(first);
    void bare.memory.set({ key: 'k', value: 'old', expires: null, updated: 1 });
    void bare.memory.set({ key: 'k', value: 'new', expires: null, updated: 2 });
    await delay(60);
    assert.equal((await bare.memory.get('k', 3))?.value, 'old', 'premise: unordered, the older write lands last');

    const ordered = orderedStore(slowStore(first));
    void ordered.memory.set({ key: 'k', value: 'old', expires: null, updated: 1 });
    void ordered.memory.set({ key: 'k', value: 'new', expires: null, updated: 2 });
    assert.equal((await ordered.memory.get('k', 3))?.value, 'new', 'a read sees every write asked before it');
    await settledWrites(ordered);
    await ordered.close();
  });

  it('shares one queue: wrapping an ordered store again returns it', () => {
    const ordered = orderedStore(new MemoryStore());
    assert.equal(orderedStore(ordered), ordered);
  });
});

describe('SequenceBlock', () => {
  it('hands out values synchronously from reserved blocks, unique across reopening', async () => {
    const store = new MemoryStore();
    const first = new SequenceBlock(store.sequences, 'turn', 4);
    await first.reserve();
    const seen = [first.take(), first.take(), first.take()];
    await delay(0); // the refill asked for at half the block arrives
    seen.push(first.take(), first.take(), first.take());
    const second = new SequenceBlock(store.sequences, 'turn', 4);
    await second.reserve();
    seen.push(second.take());
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 9]);
  });

  it('refuses to hand out a value before anything is reserved', () => {
    const block = new SequenceBlock(new MemoryStore().sequences, 'turn');
    assert.throws(() => block.take(), /no values reserved/);
  });
});

describe('MemoryKeyCache', () => {
  it('lists the first keys at start and follows every committed change', async () => {
    const store = new MemoryStore();
    await store.memory.set({ key: 'b', value: 1, expires: null, updated: 0 });
    const cache = new MemoryKeyCache(store.memory, 2, () => 0);
    await cache.start();
    assert.deepEqual(cache.keys, ['b']);
    await store.memory.set({ key: 'a', value: 1, expires: null, updated: 0 });
    await store.memory.set({ key: 'c', value: 1, expires: null, updated: 0 });
    await delay(0);
    assert.deepEqual(cache.keys, ['a', 'b']);
    await store.memory.delete('a');
    await delay(0);
    assert.deepEqual(cache.keys, ['b', 'c']);
    cache.stop();
  });
});
