// SqliteStore tasks across reopening, and the schema upgrades: a version-1 store (storeV1Fixture.ts) and a
// version-3 store (storeV3Fixture.ts) open and keep their inbox, conversations, tasks, memory and counters.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { TaskRecord } from '../../../src/domain/task.js';
import { SCHEMA_VERSION } from '../../../src/store/sqliteSchema.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { conversation, inboxEvent, taskRecord, userMsg } from './storeFixtures.js';
import { V1_DONE_ID, V1_PENDING_ID, writeStoreV1 } from './storeV1Fixture.js';
import { V3_PENDING_ID, V3_TASK_ID, writeStoreV3 } from './storeV3Fixture.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'agentd-sqlite-tasks-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
function freshDir(): string {
  dirs += 1;
  const dir = path.join(root, `store-${dirs}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function readMeta(dir: string): { tables: string[]; version: unknown; generation: unknown } {
  const db = new Database(path.join(dir, 'agentd.db'), { readonly: true });
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all();
    const meta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    return { tables: tables as string[], version: meta.get('schema_version'), generation: meta.get('generation') };
  } finally {
    db.close();
  }
}

describe('SqliteStore tasks across reopening', () => {
  it('keeps saved tasks, their listing and their event link after reopening', async () => {
    const dir = freshDir();
    const a = taskRecord({ id: '01D0000000000000000000000A', inbox_event: 'E1', updated: 100 });
    const b = taskRecord({ id: '01D0000000000000000000000B', principal: 'bob', updated: 200 });
    let store = new SqliteStore(dir);
    await store.tasks.save(a);
    await store.tasks.save(b);
    await store.close();

    store = new SqliteStore(dir);
    assert.deepEqual(await store.tasks.get(a.id), a);
    assert.deepEqual(await store.tasks.list({ principal: null, limit: 10 }), [b, a]);
    assert.deepEqual(await store.tasks.forEvent('E1'), a);
    await store.close();
  });

  it('keeps a fold committed by completeInbox with its task after reopening', async () => {
    const dir = freshDir();
    const event = inboxEvent();
    const task = taskRecord({ inbox_event: event.id });
    let store = new SqliteStore(dir);
    await store.inbox.accept(event);
    await store.tasks.save(task);
    const done: TaskRecord = { ...task, state: 'failed', message: 'boom', updated: 300 };
    const conversations = [{ conversation: conversation(), expectedRevision: 0 }];
    await store.inbox.complete(event.id, {
      outcome: { status: 'failed', reply: '', error: 'boom' },
      conversations,
      task: done,
    });
    await store.close();

    store = new SqliteStore(dir);
    assert.deepEqual(await store.inbox.claim('test', 60_000, 0), []);
    assert.deepEqual(await store.tasks.forEvent(event.id), done);
    await store.close();
  });
});

describe('SqliteStore schema upgrade from version 1', () => {
  it('starts from a real v1 file: no tasks table, schema_version 1 (the premise)', async () => {
    const dir = freshDir();
    writeStoreV1(dir);
    const meta = readMeta(dir);
    assert.equal(meta.version, 1);
    assert.equal(meta.tables.includes('tasks'), false);
    assert.equal(SCHEMA_VERSION, 7);
  });

  it('gains the tasks table at open and keeps the inbox, conversations, memory and sequences', async () => {
    const dir = freshDir();
    writeStoreV1(dir);
    const store = new SqliteStore(dir);
    assert.equal(store.generation, 2, 'the v1 generation counter carries on');
    assert.deepEqual(
      (await store.inbox.claim('test', 60_000, 0)).map((e) => [e.id, e.payload.text, e.dedupe_key]),
      [[V1_PENDING_ID, 'still pending', 'startup']],
    );
    assert.deepEqual((await store.inbox.find(V1_DONE_ID))?.outcome, { status: 'completed', reply: 'hi' });
    assert.equal((await store.inbox.accept(inboxEvent({ dedupe_key: 'startup' }))).created, false);
    assert.equal((await store.inbox.findByKey('alice', 'startup'))?.id, V1_PENDING_ID, 'the key moved into its scope');
    const [conv] = (await store.conversations.load()).map((s) => s.conversation);
    assert.equal(conv?.id, 'ctx-v1');
    assert.equal(conv?.messages.length, 2);
    assert.deepEqual((await store.memory.get('k', 0))?.value, { a: 1 });
    assert.equal(await store.sequences.next('turn'), 2);

    const task = taskRecord({ inbox_event: V1_PENDING_ID, conversation: 'ctx-v1' });
    await store.tasks.save(task);
    assert.deepEqual(await store.tasks.forEvent(V1_PENDING_ID), task);
    const conversations = [{ conversation: { ...conv!, messages: [userMsg('x')] }, expectedRevision: 1 }];
    await store.inbox.complete(V1_PENDING_ID, { outcome: { status: 'completed', reply: 'ok' }, conversations });
    await store.close();

    const meta = readMeta(dir);
    assert.equal(meta.version, SCHEMA_VERSION);
    assert.ok(meta.tables.includes('tasks'));
    assert.ok(meta.tables.includes('budget_counters'));
    assert.ok(meta.tables.includes('conversation_controls'));
    assert.ok(meta.tables.includes('subagents'), 'schema 5 adds the subagent records');
    assert.ok(meta.tables.includes('timers') && meta.tables.includes('fired_keys'), 'schema 6 adds timers and keys');
  });

  it('keeps the controls of a conversation (mode, goal, side task) across a reopen; none stay absent', async () => {
    const dir = freshDir();
    writeStoreV1(dir);
    let store = new SqliteStore(dir);
    const [conv] = (await store.conversations.load()).map((s) => s.conversation);
    assert.equal(conv?.controls, undefined, 'premise: a v1 conversation has no controls');
    const controls = { mode: 'plan' as const, goal: null, side_of: 'root', proposal: null };
    await store.conversations.commit({ ...conv!, controls }, 1);
    await store.close();
    store = new SqliteStore(dir);
    assert.deepEqual((await store.conversations.load()).map((s) => s.conversation)[0]?.controls, controls);
    await store.close();
  });

  it('gains conversations.skills at open: loaded skill names round-trip, none reads back absent', async () => {
    const dir = freshDir();
    writeStoreV1(dir);
    let store = new SqliteStore(dir);
    const [conv] = (await store.conversations.load()).map((s) => s.conversation);
    assert.equal(conv?.skills, undefined, 'a v1 conversation has no skills');
    await store.conversations.commit({ ...conv!, skills: ['deploy', 'review'] }, 1);
    await store.close();
    store = new SqliteStore(dir);
    assert.deepEqual((await store.conversations.load()).map((s) => s.conversation)[0]?.skills, ['deploy', 'review']);
    await store.close();
  });

  it('opens an upgraded store again unchanged, tasks and all', async () => {
    const dir = freshDir();
    writeStoreV1(dir);
    const task = taskRecord();
    let store = new SqliteStore(dir);
    await store.tasks.save(task);
    await store.close();
    store = new SqliteStore(dir);
    assert.equal(store.generation, 3);
    assert.deepEqual(await store.tasks.get(task.id), task);
    assert.equal((await store.inbox.claim('test', 60_000, 0)).length, 1);
    await store.close();
    assert.equal(readMeta(dir).version, SCHEMA_VERSION);
  });
});

describe('SqliteStore schema upgrade from version 3', () => {
  it('opens a real v3 file and keeps its data; keys move into their principal scope; revisions start at 1', async () => {
    const dir = freshDir();
    writeStoreV3(dir);
    assert.equal(readMeta(dir).version, 3, 'premise: a v3 file');
    const store = new SqliteStore(dir);
    assert.deepEqual(
      (await store.inbox.claim('test', 60_000, 0)).map((e) => [e.id, e.dedupe_key]),
      [
        [V1_PENDING_ID, 'startup'],
        [V3_PENDING_ID, 'a2a:m-1'],
      ],
    );
    assert.equal((await store.inbox.findByKey('user:bob', 'a2a:m-1'))?.id, V3_PENDING_ID);
    assert.equal((await store.inbox.findByKey('alice', 'startup'))?.id, V1_PENDING_ID);
    const retry = inboxEvent({ principal: 'user:bob', dedupe_key: 'a2a:m-1' });
    assert.deepEqual(await store.inbox.accept(retry), {
      record: { ...(await store.inbox.find(V3_PENDING_ID))!, status: 'pending' },
      created: false,
    });
    assert.equal(
      (await store.inbox.accept(inboxEvent({ principal: 'user:eve', dedupe_key: 'a2a:m-1' }))).created,
      true,
    );
    assert.equal((await store.tasks.forEvent(V3_PENDING_ID))?.id, V3_TASK_ID);
    const [stored] = await store.conversations.load();
    assert.equal(stored?.revision, 1);
    assert.equal(stored?.conversation.controls?.mode, 'plan');
    assert.deepEqual(stored?.conversation.skills, ['deploy']);
    assert.deepEqual(await store.budget.load(), [
      { scope: 'instance', window: 'lifetime', index: 0, tokens: 4200, requests: 0 },
    ]);
    assert.equal(await store.conversations.commit(stored!.conversation, 1), 2);
    await store.close();
    assert.equal(readMeta(dir).version, SCHEMA_VERSION);
    const again = new SqliteStore(dir);
    assert.equal((await again.inbox.findByKey('user:bob', 'a2a:m-1'))?.id, V3_PENDING_ID, 'the upgrade runs once');
    await again.close();
  });
});
