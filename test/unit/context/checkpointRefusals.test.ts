// A full disk under the conversation checkpoint (issue 13, docs/concepts/durability.md): one
// `store.checkpoint.fail` per conversation and one `store.checkpoint.recovered`, retried on the fold backoff
// instead of at every reactor step (the review counted 107 lines in 8 s).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConversationBook } from '../../../src/context/conversationBook.js';
import { DaemonError } from '../../../src/errors.js';
import { createLogger } from '../../../src/obs/log.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import type { Store } from '../../../src/store/store.js';

const flushed = () => new Promise((r) => setImmediate(r));

describe('ConversationBook checkpoint while the store refuses', () => {
  it('logs the first refusal and the recovery once, and waits out the backoff between attempts', async () => {
    const inner = new MemoryStore();
    let full = true;
    let attempts = 0;
    const store: Store = Object.assign(Object.create(inner) as Store, {
      conversations: {
        ...inner.conversations,
        commit: (...args: Parameters<Store['conversations']['commit']>) => {
          attempts++;
          if (full) return Promise.reject(new DaemonError('store_io', 'store x: disk full (SQLITE_FULL)', true));
          return inner.conversations.commit(...args);
        },
      },
    });
    const lines: Array<Record<string, unknown>> = [];
    let t = 1_000;
    const log = createLogger({ level: 'info', write: (line) => lines.push(JSON.parse(line)) });
    const book = new ConversationBook(store, log, () => t);
    const conv = book.open('c', null);
    book.append(conv, [{ role: 'note', text: 'kept', ts: t }]);
    // Twenty reactor steps within the first backoff (250 ms). Premise: each one wrote and logged again.
    for (let step = 0; step < 20; step++) {
      book.checkpoint();
      await flushed();
      t += 10;
    }
    assert.equal(attempts, 1, 'one attempt inside the backoff');
    t += 50;
    book.checkpoint();
    await flushed();
    assert.equal(attempts, 2, 'tried again once the backoff passed');
    const fails = lines.filter((l) => l.event === 'store.checkpoint.fail');
    assert.equal(fails.length, 1, 'one line for the whole outage');
    full = false;
    t += 1_000;
    book.checkpoint();
    await flushed();
    const recovered = lines.filter((l) => l.event === 'store.checkpoint.recovered');
    assert.deepEqual(
      recovered.map((l) => [l.ctx, l.attempts]),
      [['c', 2]],
    );
    const [saved] = await inner.conversations.load();
    assert.equal(saved?.conversation.messages.length, 1, 'the change was written once the disk recovered');
  });
});
