// SqliteStore: the shared behaviour suite, then what must survive closing and reopening the directory,
// and how it refuses files that are not agentd databases.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { Conversation } from '../../../src/domain/conversation.js';
import { DaemonError } from '../../../src/errors.js';
import { openStore } from '../../../src/store/openStore.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { describeStoreBehaviour } from './storeBehaviour.js';
import { conversation, inboxEvent, mixedMessages, userMsg } from './storeFixtures.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'agentd-sqlite-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
function freshDir(): string {
  dirs += 1;
  return path.join(root, `store-${dirs}`);
}

describeStoreBehaviour('SqliteStore', () => new SqliteStore(freshDir()));

describe('SqliteStore across reopening', () => {
  it('creates the directory 0700 with agentd.db inside, opened by openStore', () => {
    const dir = path.join(freshDir(), 'nested', 'deeper');
    const store = openStore({ kind: 'sqlite', path: dir });
    assert.equal(store.kind, 'sqlite');
    assert.equal(store.location, path.join(dir, 'agentd.db'));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(readFileSync(path.join(dir, 'agentd.pid'), 'utf8').trim(), String(process.pid));
    store.close();
    store.close();
  });

  it('bumps the generation by one on each open and keeps sequences counting', () => {
    const dir = freshDir();
    const seen: Array<[number, number]> = [];
    for (let i = 0; i < 3; i++) {
      const store = new SqliteStore(dir);
      seen.push([store.generation, store.nextSequence('turn')]);
      store.close();
    }
    assert.deepEqual(seen, [
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('replays a pending event with its id, principal and payload, and remembers done outcomes', () => {
    const dir = freshDir();
    const first = new SqliteStore(dir);
    const pending = inboxEvent({ dedupe_key: 'startup', principal: 'bob', payload: { context_id: 'c', text: 'ü ✓' } });
    const finished = inboxEvent({ dedupe_key: 'done-one', ts: pending.ts + 1 });
    assert.equal(first.acceptInbox(pending), true);
    assert.equal(first.acceptInbox(finished), true);
    first.markInboxDone(finished.id, { status: 'completed', reply: 'ok' });
    first.close();

    const second = new SqliteStore(dir);
    assert.deepEqual(second.pendingInbox(), [pending]);
    assert.equal(second.acceptInbox(inboxEvent({ dedupe_key: 'startup' })), false);
    assert.deepEqual(second.pendingInbox(), [pending]);
    second.markInboxDone(pending.id);
    assert.deepEqual(second.findInboxByDedupe('done-one'), {
      ...finished,
      status: 'done',
      outcome: { status: 'completed', reply: 'ok' },
    });
    second.close();

    const third = new SqliteStore(dir);
    assert.deepEqual(third.pendingInbox(), []);
    assert.equal(third.findInboxByDedupe('startup')?.status, 'done');
    third.close();
  });

  it('reloads conversations, appended and compacted, after reopening', () => {
    const dir = freshDir();
    const conv: Conversation = conversation({ id: 'root', kind: 'root', messages: mixedMessages() });
    const other = conversation({ id: 'c2', messages: [userMsg('one')] });
    let store = new SqliteStore(dir);
    store.saveConversations([conv, other]);
    store.close();

    store = new SqliteStore(dir);
    conv.messages.push(userMsg('after restart'));
    store.saveConversations([conv]);
    const compacted = { ...other, version: 2, messages: [] };
    store.saveConversations([compacted]);
    store.close();

    store = new SqliteStore(dir);
    assert.deepEqual(store.loadConversations(), [compacted, conv]);
    store.close();
  });

  it('keeps memory and its expiry across reopening', () => {
    const dir = freshDir();
    let store = new SqliteStore(dir);
    store.memorySet({ key: 'a', value: [1], expires: null, updated: 1 });
    store.memorySet({ key: 'b', value: 'x', expires: 50, updated: 1 });
    store.close();
    store = new SqliteStore(dir);
    assert.deepEqual(store.memoryList('', 10, 40), { keys: ['a', 'b'], truncated: false });
    assert.equal(store.memoryGet('b', 60), null);
    assert.deepEqual(store.memoryGet('a', 60), { key: 'a', value: [1], expires: null, updated: 1 });
    store.close();
  });

  it('keeps budget counters across reopening, one row per scope and window', () => {
    const dir = freshDir();
    let store = new SqliteStore(dir);
    const hour = { scope: 'instance', window: 'hour', index: 475_000, tokens: 1200, requests: 3 };
    store.saveBudgetCounters([hour, { scope: 'instance', window: 'lifetime', index: 0, tokens: 5000, requests: 0 }]);
    store.saveBudgetCounters([{ ...hour, tokens: 1500, requests: 4 }]);
    store.close();
    store = new SqliteStore(dir);
    assert.deepEqual(store.loadBudgetCounters(), [
      { ...hour, tokens: 1500, requests: 4 },
      { scope: 'instance', window: 'lifetime', index: 0, tokens: 5000, requests: 0 },
    ]);
    store.close();
  });
});

describe('SqliteStore refusing bad files', () => {
  function expectCorrupt(dir: string, content: Buffer | null): void {
    const file = path.join(dir, 'agentd.db');
    const before = readFileSync(file);
    assert.throws(
      () => new SqliteStore(dir),
      (err: unknown) =>
        err instanceof DaemonError &&
        err.code === 'store_corrupt' &&
        err.message.startsWith(`store ${file} is not a valid agentd database: `),
    );
    assert.deepEqual(readFileSync(file), content ?? before, 'the file is left untouched');
  }

  it('refuses a file of garbage bytes and leaves it as it was', () => {
    const dir = freshDir();
    new SqliteStore(dir).close();
    const garbage = Buffer.alloc(8192, 0);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 251;
    writeFileSync(path.join(dir, 'agentd.db'), garbage);
    expectCorrupt(dir, garbage);
  });

  it('refuses a SQLite database that is not an agentd store', () => {
    const dir = freshDir();
    new SqliteStore(dir).close();
    const file = path.join(dir, 'agentd.db');
    rmSync(file);
    const foreign = new Database(file);
    foreign.exec('CREATE TABLE photos (id INTEGER PRIMARY KEY)');
    foreign.close();
    expectCorrupt(dir, null);
  });

  it('refuses a store written by a newer schema', () => {
    const dir = freshDir();
    new SqliteStore(dir).close();
    const db = new Database(path.join(dir, 'agentd.db'));
    db.prepare(`UPDATE meta SET value = 999 WHERE key = 'schema_version'`).run();
    db.close();
    assert.throws(() => new SqliteStore(dir), /schema version 999 is newer/);
  });
});
