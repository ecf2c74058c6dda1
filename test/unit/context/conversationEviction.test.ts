// The conversation book's cache over a real SQLite file: an idle conversation past the limits leaves memory and
// comes back identical; a fold, a compaction, plan and controls changes work on it after the reload, on the right
// revision; a conversation something holds is never evicted.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConversationBook } from '../../../src/context/conversationBook.js';
import type { Conversation, ConversationControls, Summary } from '../../../src/domain/conversation.js';
import type { Plan } from '../../../src/domain/plan.js';
import { createLogger } from '../../../src/obs/log.js';
import { orderedStore, settledWrites } from '../../../src/store/commitQueue.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import type { Store } from '../../../src/store/store.js';

const plan: Plan = {
  goal: 'ship',
  items: [{ id: 1, title: 'write', status: 'pending', updated: 5 }],
  next_id: 2,
  created: 5,
  updated: 5,
};
const controls: ConversationControls = { mode: 'plan', goal: null, side_of: null, proposal: null };
const summary: Summary = { goals: ['g'], decisions: [], open: [], facts: ['f'], covers_messages: 2, updated: 5 };

interface Bench {
  store: Store;
  book: ConversationBook;
  events: Array<Record<string, unknown>>;
  held: Set<string>;
  close(): Promise<void>;
}

function openBook(dir: string, entries: number): Bench {
  const store = orderedStore(new SqliteStore(dir));
  const events: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
  const held = new Set<string>();
  const cache = { entries, bytes: 1_000_000_000 };
  const book = new ConversationBook(store, log, () => 5, { conversation_cache: cache, busy: () => held });
  return { store, book, events, held, close: () => store.close() };
}

/** A conversation with every part a reload must bring back: messages, plan, controls, skills, turns. */
function fill(book: ConversationBook, id: string): void {
  const conv = book.open(id, 'user:a');
  book.append(conv, [
    { role: 'user', text: `hello ${id}`, event: `ev-${id}`, principal: 'user:a', ts: 5 },
    { role: 'assistant', text: 'hi', tool_calls: [], ts: 5 },
  ]);
  book.setPlan(conv, plan);
  book.setControls(conv, controls);
  book.setSkills(conv, ['review']);
  book.countTurn(id);
}

/** Two trims: a conversation used since the last one stays for the next (its caller's step may still run). */
function trimTwice(book: ConversationBook): void {
  book.trim();
  book.trim();
}

const stored = async (store: Store, id: string) => store.conversations.get(id);

describe('ConversationBook eviction', () => {
  it('evicts idle conversations past the limit and reloads one identical; changes after it land on its revision', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agentd-evict-'));
    const { store, book, events, close } = openBook(dir, 2);
    try {
      for (const id of ['a', 'b', 'c']) fill(book, id);
      book.checkpoint();
      await settledWrites(store);
      const before = structuredClone(book.get('a')) as Conversation;
      book.get('b');
      book.get('c');
      trimTwice(book);
      // Premise: 'a' (least recently used) left memory; the book still knows it and who owns it.
      assert.equal(book.isResident('a'), false);
      assert.equal(book.get('a'), undefined);
      assert.equal(book.residentCount, 2);
      assert.equal(book.heads.ownerOf('a'), 'user:a');
      assert.throws(() => book.open('a', 'user:a'), /conversation a is stored but not in memory/);

      const reloaded = await book.fetch('a');
      assert.deepEqual(reloaded, before, 'evicted and reloaded, the conversation is identical');

      // A fold, a plan change, controls and a compaction on the reloaded conversation, then a second round trip.
      const conv = reloaded as Conversation;
      book.append(conv, [{ role: 'user', text: 'again', ts: 6 }]);
      book.setPlan(conv, null);
      book.setControls(conv, { ...controls, mode: 'execute' });
      book.checkpoint();
      await settledWrites(store);
      book.replaceAfterCompaction(conv, { summary, messages: conv.messages.slice(-1), version: 2, updated: 7 });
      book.checkpoint();
      await settledWrites(store);
      const after = structuredClone(conv);
      assert.deepEqual(await stored(store, 'a'), { conversation: after, revision: 3 }, 'two commits on revision 1');
      book.get('b');
      book.get('c');
      trimTwice(book);
      assert.equal(book.isResident('a'), false);
      assert.deepEqual(await book.fetch('a'), after);
      assert.deepEqual(
        events.filter((e) => e.event === 'store.checkpoint.fail'),
        [],
        'no commit was refused as stale (the reload took the stored revision)',
      );
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never evicts a conversation something holds, one with changes not yet written, or one with an active goal', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agentd-evict-'));
    const { store, book, held, close } = openBook(dir, 1);
    try {
      for (const id of ['held', 'goal', 'dirty', 'idle']) fill(book, id);
      book.checkpoint();
      await settledWrites(store);
      held.add('held');
      const goal = book.get('goal') as Conversation;
      const active = { objective: 'o', status: 'active' } as unknown as NonNullable<ConversationControls['goal']>;
      book.setControls(goal, { ...controls, goal: active });
      await book.saveNow(goal);
      book.append(book.get('dirty') as Conversation, [{ role: 'note', text: 'unwritten', ts: 6 }]);
      book.get('idle');
      trimTwice(book);
      assert.deepEqual(
        ['held', 'goal', 'dirty', 'idle'].filter((id) => book.isResident(id)),
        ['held', 'goal', 'dirty'],
        'only the idle one left (the premise: the limit of 1 asked for three more to go)',
      );
      held.delete('held');
      book.checkpoint();
      await settledWrites(store);
      trimTwice(book);
      assert.deepEqual(
        ['held', 'goal', 'dirty'].filter((id) => book.isResident(id)),
        ['goal'],
      );
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
