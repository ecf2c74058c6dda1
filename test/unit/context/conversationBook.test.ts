// The conversation book's appends: a job's message enters once per inbox event (a replay never doubles it), notes
// and a turn's delta keep their order, and each append is written at the next checkpoint.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConversationBook } from '../../../src/context/conversationBook.js';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import type { TurnJob } from '../../../src/domain/job.js';
import { createLogger } from '../../../src/obs/log.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';

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
