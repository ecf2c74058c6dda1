// The intake holds what its callers use: a conversation loaded for a message, a command or a replay stays in memory
// until its caller is done (or its job holds it), whatever the store's latency; the book never pins a side task,
// and a note whose conversation cannot be read is logged and retried, never an unhandled rejection. Real SQLite.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Config } from '../../../src/config/types.js';
import { ConversationBook, DEFAULT_CONVERSATION_CACHE } from '../../../src/context/conversationBook.js';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import { createLogger } from '../../../src/obs/log.js';
import { orderedStore, settledWrites } from '../../../src/store/commitQueue.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import type { Store } from '../../../src/store/store.js';
import { ConversationIntake } from '../../../src/supervisor/conversationIntake.js';
import type { Job } from '../../../src/supervisor/jobTable.js';
import { within } from '../../integration/wait.js';

interface Bench {
  raw: SqliteStore;
  store: Store;
  book: ConversationBook;
  intake: ConversationIntake;
  jobs: Map<string, Job>;
  events: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** A book that keeps nothing idle in memory (entries 0), its store's reads slow like a network store's. */
function openBench(dir: string): Bench {
  const raw = new SqliteStore(dir);
  const get = raw.conversations.get.bind(raw.conversations);
  raw.conversations.get = (id) => new Promise((r) => setTimeout(r, 30)).then(() => get(id));
  const store = orderedStore(raw);
  const events: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
  const jobs = new Map<string, Job>();
  const config = { a2a: { principals: [] } } as unknown as Config;
  let intake: ConversationIntake | undefined;
  const busy = () => new Set(intake?.held() ?? []);
  const book = new ConversationBook(store, log, () => 5, { conversation_cache: { entries: 0, bytes: 1e9 }, busy });
  intake = new ConversationIntake({ config, conversations: book, log, jobs: { jobs, input: () => undefined } });
  return { raw, store, book, intake, jobs, events, close: () => store.close() };
}

/** Two trims: what a step just used stays for one trim, so two leave only what is held. */
function trimTwice(book: ConversationBook): void {
  book.trim();
  book.trim();
}

async function stored(bench: Bench, ids: string[]): Promise<void> {
  for (const id of ids) {
    const conv = bench.book.open(id, 'user:a');
    bench.book.append(conv, [{ role: 'user', text: `hello ${id}`, ts: 5 }]);
  }
  bench.book.checkpoint();
  await settledWrites(bench.store);
  trimTwice(bench.book);
  for (const id of ids) assert.equal(bench.book.isResident(id), false, `premise: ${id} was evicted`);
}

function withBench(name: string, body: (bench: Bench) => Promise<void>): void {
  it(name, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agentd-intake-'));
    const bench = openBench(dir);
    try {
      await body(bench);
    } finally {
      await bench.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

describe('ConversationIntake holds what its callers use', () => {
  withBench('an admitted message, a command and a replay keep their conversation until they are done', async (b) => {
    await stored(b, ['a', 'b', 'c']);
    // Premise: a plain load keeps it for one trim only (a caller that awaits anything else may find it gone).
    await b.intake.load('a');
    trimTwice(b.book);
    assert.equal(b.book.isResident('a'), false);

    const admission = await b.intake.admit('user:a', 'a', 'hi');
    trimTwice(b.book);
    assert.equal(b.book.isResident('a'), true, 'held while its accept is on its way');
    admission.release();
    trimTwice(b.book);
    assert.equal(b.book.isResident('a'), false);

    const seen = await b.intake.withLoaded('b', () => {
      trimTwice(b.book);
      return b.book.isResident('b');
    });
    assert.equal(seen, true, 'held while the command runs');

    const event = { id: 'ev-c', kind: 'a2a_message', payload: { context_id: 'c', text: 'x' } } as InboxEvent;
    await b.intake.beforeReplay([event], undefined);
    trimTwice(b.book);
    assert.equal(b.book.isResident('c'), true, 'held until its job exists');
    b.jobs.set('ev-c', { eventId: 'ev-c', ctx: 'other' } as Job);
    trimTwice(b.book);
    assert.equal(b.book.isResident('c'), false, 'then the job holds it (here: another one)');
  });

  withBench('a side task is evicted like any idle conversation', async (b) => {
    const side = b.book.open('side-1', 'user:a');
    b.book.setControls(side, { mode: 'execute', goal: null, side_of: 'parent', proposal: null });
    b.book.checkpoint();
    await settledWrites(b.store);
    trimTwice(b.book);
    assert.equal(b.book.isResident('side-1'), false, 'its link is stored: side.promote loads it');
    assert.equal((await b.book.fetch('side-1'))?.controls?.side_of, 'parent');
  });

  withBench('a note into an evicted conversation survives a failed read: logged, retried, written', async (b) => {
    await stored(b, ['a']);
    const get = b.raw.conversations.get;
    let failures = 1;
    b.raw.conversations.get = (id) => (failures-- > 0 ? Promise.reject(new Error('disk I/O error')) : get(id));
    // Before, this promise rejected (and its callers discard it: an unhandled rejection ends the process). The retry
    // timer does not hold a process open by itself (a daemon's listeners do): this test holds it.
    const alive = setInterval(() => {}, 1_000);
    try {
      await within(b.book.noteNow('a', 'remember this', 'user:a'), 10_000, 'the note');
    } finally {
      clearInterval(alive);
    }
    const fail = b.events.find((e) => e.event === 'store.checkpoint.fail');
    assert.equal(fail?.ctx, 'a');
    assert.equal(fail?.err, 'disk I/O error');
    const messages = (await b.store.conversations.get('a'))?.conversation.messages ?? [];
    assert.deepEqual(
      messages.map((m) => (m.role === 'note' ? m.text : m.role)),
      ['user', 'remember this'],
    );
  });

  it('the cache defaults are the schema defaults', () => {
    assert.deepEqual(DEFAULT_CONVERSATION_CACHE, { entries: 500, bytes: 67_108_864 });
  });
});
