// The conversation book's appends: a job's message enters once per inbox event (a replay never doubles it), notes
// and a turn's delta keep their order, and each append is written at the next checkpoint.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConversationBook } from '../../../src/context/conversationBook.js';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import type { TurnJob } from '../../../src/domain/job.js';
import { createLogger } from '../../../src/obs/log.js';
import { orderedStore } from '../../../src/store/commitQueue.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import type { Store } from '../../../src/store/store.js';

const event: InboxEvent = {
  id: '01A',
  kind: 'a2a_message',
  ts: 0,
  principal: 'user:a',
  payload: { context_id: 'c', text: 'hello' },
};
/** Lets the memory store's commits (promises the book does not await) settle. */
const flushed = () => new Promise((r) => setImmediate(r));
const job: TurnJob = { event, ctx: 'c', principal: 'user:a', text: 'hello', depth: 0 };

describe('ConversationBook appends', () => {
  it('appends a job’s message once per inbox event, with its principal', () => {
    const book = new ConversationBook(new MemoryStore(), createLogger({ level: 'error', write: () => {} }), () => 5);
    const conv = book.open('c', 'user:a');
    book.appendUserMessage(conv, job);
    book.appendUserMessage(conv, job);
    assert.deepEqual(conv.messages, [{ role: 'user', text: 'hello', event: '01A', ts: 5, principal: 'user:a' }]);
  });

  it('keeps the order of notes then a delta, and writes them at the next checkpoint', async () => {
    const store = new MemoryStore();
    const book = new ConversationBook(store, createLogger({ level: 'error', write: () => {} }), () => 5);
    const conv = book.open('c', null);
    book.checkpoint();
    await flushed();
    book.append(conv, [{ role: 'note', text: 'current date', ts: 5 }]);
    book.append(conv, [{ role: 'assistant', text: 'hi', tool_calls: [], ts: 5 }]);
    book.countTurn('c');
    book.checkpoint();
    await flushed();
    const [saved] = await store.conversations.load();
    assert.deepEqual(
      saved?.conversation.messages.map((m) => m.role),
      ['note', 'assistant'],
    );
    assert.equal(saved?.conversation.turns, 1);
  });
});

describe('ConversationBook commits', () => {
  it('writes the conversation as it was when the commit was queued, not when it runs', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agentd-book-'));
    const sqlite = new SqliteStore(dir);
    // The first commit is held (as behind a slow write) while the next fold appends its reply.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const commit = sqlite.conversations.commit.bind(sqlite.conversations);
    let calls = 0;
    const gated: Store = {
      kind: sqlite.kind,
      location: sqlite.location,
      generation: sqlite.generation,
      inbox: sqlite.inbox,
      budget: sqlite.budget,
      tasks: sqlite.tasks,
      memory: sqlite.memory,
      sequences: sqlite.sequences,
      close: () => sqlite.close(),
      conversations: {
        load: () => sqlite.conversations.load(),
        commit: async (conv, rev) => {
          if (calls++ === 0) await held;
          return commit(conv, rev);
        },
      },
    };
    try {
      const book = new ConversationBook(
        orderedStore(gated),
        createLogger({ level: 'error', write: () => {} }),
        () => 5,
      );
      const conv = book.open('c', null);
      book.append(conv, [{ role: 'user', text: 'first', ts: 5 }]);
      const first = book.saveNow(conv);
      book.append(conv, [{ role: 'assistant', text: 'later reply', tool_calls: [], ts: 5 }]);
      release();
      await withTimeout(first, 5_000);
      const [saved] = await sqlite.conversations.load();
      // Premise: the held commit was asked for before the reply existed; writing it must not carry the reply.
      assert.deepEqual(
        saved?.conversation.messages.map((m) => m.role),
        ['user'],
      );
      assert.equal(saved?.revision, 1);
    } finally {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
