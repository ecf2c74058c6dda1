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

describeStoreBehaviour('SqliteStore', async () => new SqliteStore(freshDir()));

describe('SqliteStore across reopening', () => {
  it('creates the directory 0700 with agentd.db inside, opened by openStore', async () => {
    const dir = path.join(freshDir(), 'nested', 'deeper');
    const store = openStore({ kind: 'sqlite', path: dir });
    assert.equal(store.kind, 'sqlite');
    assert.equal(store.location, path.join(dir, 'agentd.db'));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(readFileSync(path.join(dir, 'agentd.pid'), 'utf8').trim(), String(process.pid));
    await store.close();
    await store.close();
  });

  it('bumps the generation by one on each open and keeps sequences counting', async () => {
    const dir = freshDir();
    const seen: Array<[number, number]> = [];
    for (let i = 0; i < 3; i++) {
      const store = new SqliteStore(dir);
      seen.push([store.generation, await store.sequences.next('turn')]);
      await store.close();
    }
    assert.deepEqual(seen, [
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('replays a pending event with its id, principal and payload, and remembers done outcomes', async () => {
    const dir = freshDir();
    const first = new SqliteStore(dir);
    const pending = inboxEvent({ dedupe_key: 'startup', principal: 'bob', payload: { context_id: 'c', text: 'ü ✓' } });
    const finished = inboxEvent({ dedupe_key: 'done-one', ts: pending.ts + 1 });
    assert.equal((await first.inbox.accept(pending)).created, true);
    assert.equal((await first.inbox.accept(finished)).created, true);
    await first.inbox.complete(finished.id, { outcome: { status: 'completed', reply: 'ok' }, conversations: [] });
    await first.close();

    const second = new SqliteStore(dir);
    assert.deepEqual(await second.inbox.claim('test', 60_000, 0), [pending]);
    assert.equal((await second.inbox.accept(inboxEvent({ dedupe_key: 'startup', principal: 'bob' }))).created, false);
    assert.deepEqual(await second.inbox.claim('test', 60_000, 0), [pending]);
    await second.inbox.complete(pending.id, { outcome: { status: 'completed', reply: '' }, conversations: [] });
    assert.deepEqual(await second.inbox.findByKey('alice', 'done-one'), {
      ...finished,
      status: 'done',
      outcome: { status: 'completed', reply: 'ok' },
    });
    await second.close();

    const third = new SqliteStore(dir);
    assert.deepEqual(await third.inbox.claim('test', 60_000, 0), []);
    assert.equal((await third.inbox.findByKey('bob', 'startup'))?.status, 'done');
    await third.close();
  });

  it('reloads conversations, appended and compacted, after reopening', async () => {
    const dir = freshDir();
    const conv: Conversation = conversation({ id: 'root', kind: 'root', messages: mixedMessages() });
    const other = conversation({ id: 'c2', messages: [userMsg('one')] });
    let store = new SqliteStore(dir);
    await store.conversations.commit(conv, 0);
    await store.conversations.commit(other, 0);
    await store.close();

    store = new SqliteStore(dir);
    conv.messages.push(userMsg('after restart'));
    await store.conversations.commit(conv, 1);
    const compacted = { ...other, version: 2, messages: [] };
    await store.conversations.commit(compacted, 1);
    await store.close();

    store = new SqliteStore(dir);
    assert.deepEqual(
      (await store.conversations.load()).map((s) => s.conversation),
      [compacted, conv],
    );
    await store.close();
  });

  it('keeps memory and its expiry across reopening', async () => {
    const dir = freshDir();
    let store = new SqliteStore(dir);
    await store.memory.set({ key: 'a', value: [1], expires: null, updated: 1 });
    await store.memory.set({ key: 'b', value: 'x', expires: 50, updated: 1 });
    await store.close();
    store = new SqliteStore(dir);
    assert.deepEqual(await store.memory.list('', 10, 40), { keys: ['a', 'b'], truncated: false });
    assert.equal(await store.memory.get('b', 60), null);
    assert.deepEqual(await store.memory.get('a', 60), { key: 'a', value: [1], expires: null, updated: 1 });
    await store.close();
  });

  it('keeps budget counters across reopening, one row per scope and window', async () => {
    const dir = freshDir();
    let store = new SqliteStore(dir);
    const hour = { scope: 'instance', window: 'hour', index: 475_000, tokens: 1200, requests: 3 };
    await store.budget.add([hour, { scope: 'instance', window: 'lifetime', index: 0, tokens: 5000, requests: 0 }]);
    await store.budget.add([{ ...hour, tokens: 300, requests: 1 }]);
    await store.close();
    store = new SqliteStore(dir);
    assert.deepEqual(await store.budget.load(), [
      { ...hour, tokens: 1500, requests: 4 },
      { scope: 'instance', window: 'lifetime', index: 0, tokens: 5000, requests: 0 },
    ]);
    await store.close();
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

  it('refuses a file of garbage bytes and leaves it as it was', async () => {
    const dir = freshDir();
    new SqliteStore(dir).close();
    const garbage = Buffer.alloc(8192, 0);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 251;
    writeFileSync(path.join(dir, 'agentd.db'), garbage);
    expectCorrupt(dir, garbage);
  });

  it('refuses a SQLite database that is not an agentd store', async () => {
    const dir = freshDir();
    new SqliteStore(dir).close();
    const file = path.join(dir, 'agentd.db');
    rmSync(file);
    const foreign = new Database(file);
    foreign.exec('CREATE TABLE photos (id INTEGER PRIMARY KEY)');
    foreign.close();
    expectCorrupt(dir, null);
  });

  it('refuses a store written by a newer schema', async () => {
    const dir = freshDir();
    new SqliteStore(dir).close();
    const db = new Database(path.join(dir, 'agentd.db'));
    db.prepare(`UPDATE meta SET value = 999 WHERE key = 'schema_version'`).run();
    db.close();
    assert.throws(() => new SqliteStore(dir), /schema version 999 is newer/);
  });
});
