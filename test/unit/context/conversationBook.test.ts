// The conversation book's appends: a job's message enters once per inbox event (a replay never doubles it), notes
// and a turn's delta keep their order, and each append is written at the next checkpoint; so is each named change.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConversationBook } from '../../../src/context/conversationBook.js';
import type { Conversation, ConversationControls, Summary } from '../../../src/domain/conversation.js';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import type { TurnJob } from '../../../src/domain/job.js';
import type { Plan } from '../../../src/domain/plan.js';
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
      subagents: sqlite.subagents,
      workflows: sqlite.workflows,
      timers: sqlite.timers,
      feed: sqlite.feed,
      journal: sqlite.journal,
      close: () => sqlite.close(),
      conversations: {
        load: () => sqlite.conversations.load(),
        get: (id) => sqlite.conversations.get(id),
        heads: () => sqlite.conversations.heads(),
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

describe('ConversationBook fold hold', () => {
  it('keeps a fold in flight out of other writes, also after a compaction folded the front away', () => {
    const book = new ConversationBook(new MemoryStore(), createLogger({ level: 'error', write: () => {} }), () => 5);
    const conv = book.open('c', null);
    book.append(conv, [
      { role: 'user', text: 'one', ts: 5 },
      { role: 'assistant', text: 'first', tool_calls: [], ts: 5 },
      { role: 'user', text: 'two', ts: 5 },
    ]);
    book.holdForFold(conv, 'E2');
    book.append(conv, [{ role: 'assistant', text: 'second', tool_calls: [], ts: 5 }]);
    const texts = (c: Conversation) => c.messages.map((m) => ('text' in m ? m.text : ''));
    assert.deepEqual(texts(book.prepare(conv).commit.conversation), ['one', 'first', 'two']);
    book.replaceAfterCompaction(conv, { summary: null, messages: conv.messages.slice(2), version: 2, updated: 6 });
    assert.deepEqual(texts(book.prepare(conv).commit.conversation), ['two'], 'the reply still waits for its fold');
    assert.deepEqual(texts(book.prepare(conv, 'E2').commit.conversation), ['two', 'second'], 'the fold writes it');
  });
});

describe('ConversationBook changes', () => {
  const plan: Plan = {
    goal: 'ship',
    items: [{ id: 1, title: 'build', status: 'pending', updated: 7 }],
    next_id: 2,
    created: 7,
    updated: 7,
  };
  const controls: ConversationControls = { mode: 'plan', goal: null, side_of: null, proposal: null };
  const summary: Summary = { goals: ['g'], decisions: [], open: [], facts: [], covers_messages: 1, updated: 9 };
  const cases: Array<[string, (book: ConversationBook, conv: Conversation) => void, (c: Conversation) => void]> = [
    ['setPlan', (b, c) => b.setPlan(c, plan), (c) => assert.deepEqual(c.plan, plan)],
    ['setControls', (b, c) => b.setControls(c, controls), (c) => assert.deepEqual(c.controls, controls)],
    ['setSkills', (b, c) => b.setSkills(c, ['review']), (c) => assert.deepEqual(c.skills, ['review'])],
    [
      'replaceAfterCompaction',
      (b, c) => b.replaceAfterCompaction(c, { summary, messages: c.messages.slice(1), version: 2, updated: 9 }),
      (c) => {
        assert.deepEqual(c.summary, summary);
        assert.deepEqual(
          c.messages.map((m) => m.role),
          ['assistant'],
        );
        assert.equal(c.version, 2);
      },
    ],
  ];
  for (const [name, change, check] of cases) {
    it(`${name} marks the conversation for the next checkpoint, whose commit carries the change`, async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'agentd-book-'));
      const sqlite = new SqliteStore(dir);
      try {
        const book = new ConversationBook(
          orderedStore(sqlite),
          createLogger({ level: 'error', write: () => {} }),
          () => 8,
        );
        const conv = book.open('c', null);
        book.append(conv, [
          { role: 'user', text: 'hi', ts: 5 },
          { role: 'assistant', text: 'hello', tool_calls: [], ts: 5 },
        ]);
        await withTimeout(book.saveNow(conv), 5_000);
        const revision = async () => (await sqlite.conversations.load())[0]?.revision;
        assert.equal(await revision(), 1);
        book.checkpoint();
        await new Promise((r) => setTimeout(r, 50));
        assert.equal(await revision(), 1, 'the premise: without the change, a checkpoint writes nothing');
        change(book, conv);
        check(conv);
        book.checkpoint();
        await withTimeout(
          until(async () => (await revision()) === 2),
          5_000,
        );
        const [saved] = await sqlite.conversations.load();
        assert.ok(saved);
        check(saved.conversation);
        assert.equal(saved.conversation.updated, name === 'replaceAfterCompaction' ? 9 : 8);
      } finally {
        await sqlite.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

/** Polls `done` until it holds (the caller bounds the wait). */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 5));
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
