// The task part of the Store behaviour suite (storeBehaviour.ts): saving, reading, listing and the atomic
// fold (inbox.complete with a task), alike in every implementation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskFilter, TaskRecord } from '../../../src/domain/task.js';
import type { Store } from '../../../src/store/store.js';
import { conversation, inboxEvent, taskRecord, userMsg } from './storeFixtures.js';

const fullTask: TaskRecord = taskRecord({
  id: '01TASKFULL0000000000000000',
  state: 'input_required',
  inbox_event: '01EVENT0000000000000000000',
  message: 'Which colour? ü ✓',
  result: null,
  question: { id: 'q1', text: 'Which colour?', schema: { type: 'string', enum: ['red', 'blue'] } },
  history: [
    { state: 'submitted', ts: 100 },
    { state: 'working', ts: 100 },
    { state: 'input_required', ts: 140 },
  ],
  updated: 140,
});

/** Registers the task tests for the store `current()` returns. */
export function describeTasks(current: () => Store): void {
  describe('tasks', () => {
    it('round-trips a task with every field, and replaces it on a second save', async () => {
      const store = current();
      await store.tasks.save(fullTask);
      assert.deepEqual(await store.tasks.get(fullTask.id), fullTask);
      const done: TaskRecord = { ...fullTask, state: 'completed', question: null, result: 'blue', updated: 150 };
      await store.tasks.save(done);
      assert.deepEqual(await store.tasks.get(fullTask.id), done);
      assert.deepEqual(await store.tasks.list({ principal: null, limit: 10 }), [done]);
      assert.equal(await store.tasks.get('01NOSUCHTASK00000000000000'), null);
    });

    it('is not changed by later edits to the saved or returned objects', async () => {
      const store = current();
      const task = structuredClone(fullTask);
      await store.tasks.save(task);
      task.history.push({ state: 'failed', ts: 1 });
      task.state = 'failed';
      const read = await store.tasks.get(task.id);
      if (read?.question) read.question.text = 'edited';
      assert.deepEqual(await store.tasks.get(task.id), fullTask);
    });

    it('lists by id descending (newest created first), filtered by principal and context, limited', async () => {
      const store = current();
      const a = taskRecord({ id: '01A0000000000000000000000A', updated: 300 });
      const b = taskRecord({ id: '01A0000000000000000000000B', updated: 300, context_id: 'ctx-2' });
      const c = taskRecord({ id: '01A0000000000000000000000C', updated: 100 });
      const d = taskRecord({ id: '01A0000000000000000000000D', updated: 200, principal: 'bob' });
      for (const t of [c, a, d, b]) await store.tasks.save(t);
      const ids = async (filter: TaskFilter) => (await store.tasks.list(filter)).map((t) => t.id);
      assert.deepEqual(await ids({ principal: null, limit: 10 }), [d.id, c.id, b.id, a.id]);
      assert.deepEqual(await ids({ principal: 'alice', limit: 10 }), [c.id, b.id, a.id]);
      assert.deepEqual(await ids({ principal: 'alice', context_id: 'ctx-1', limit: 10 }), [c.id, a.id]);
      assert.deepEqual(await ids({ principal: null, context_id: 'ctx-2', limit: 10 }), [b.id]);
      assert.deepEqual(await ids({ principal: 'alice', limit: 2 }), [c.id, b.id]);
      assert.deepEqual(await ids({ principal: 'carol', limit: 10 }), []);
      assert.deepEqual(await ids({ principal: null, limit: 0 }), []);
      assert.deepEqual(await ids({ principal: null, limit: -1 }), [], 'a negative limit is no rows, never "all"');
    });

    it('filters by state before the limit, continues after a cursor, and counts what a filter selects', async () => {
      const store = current();
      const a = taskRecord({ id: '01D0000000000000000000000A', updated: 300, state: 'completed' });
      const b = taskRecord({ id: '01D0000000000000000000000B', updated: 300, state: 'completed' });
      const c = taskRecord({ id: '01D0000000000000000000000C', updated: 200, state: 'completed' });
      const old = taskRecord({ id: '01D0000000000000000000000D', updated: 100, state: 'working' });
      for (const t of [a, b, c, old]) await store.tasks.save(t);
      const ids = async (filter: TaskFilter) => (await store.tasks.list(filter)).map((t) => t.id);
      assert.deepEqual(await ids({ principal: 'alice', state: 'working', limit: 1 }), [old.id]);
      assert.deepEqual(await ids({ principal: 'alice', limit: 2 }), [old.id, c.id]);
      // After c: the smaller ids, whatever their `updated`.
      assert.deepEqual(await ids({ principal: 'alice', after: { id: c.id }, limit: 2 }), [b.id, a.id]);
      assert.deepEqual(await ids({ principal: 'alice', after: { id: b.id }, limit: 5 }), [a.id]);
      assert.equal(await store.tasks.count({ principal: 'alice' }), 4);
      assert.equal(await store.tasks.count({ principal: 'alice', state: 'completed' }), 3);
      assert.equal(await store.tasks.count({ principal: 'bob' }), 0);
    });

    it('keeps a task in its place in the listing when it is updated (a cursor cannot skip it)', async () => {
      const store = current();
      const old = taskRecord({ id: '01B0000000000000000000000A', updated: 100 });
      const recent = taskRecord({ id: '01B0000000000000000000000B', updated: 200 });
      await store.tasks.save(old);
      await store.tasks.save(recent);
      await store.tasks.save({ ...old, state: 'completed', updated: 300 });
      assert.deepEqual(
        (await store.tasks.list({ principal: 'alice', limit: 10 })).map((t) => [t.id, t.state]),
        [
          [recent.id, 'working'],
          [old.id, 'completed'],
        ],
      );
    });

    it('finds the task an inbox event answers, the newest when a continued task was relinked', async () => {
      const store = current();
      const first = taskRecord({ id: '01C0000000000000000000000A', inbox_event: 'E1', updated: 100 });
      const other = taskRecord({ id: '01C0000000000000000000000B', inbox_event: 'E2', updated: 100 });
      const command = taskRecord({ id: '01C0000000000000000000000C', inbox_event: null });
      for (const t of [first, other, command]) await store.tasks.save(t);
      assert.equal((await store.tasks.forEvent('E1'))?.id, first.id);
      assert.equal((await store.tasks.forEvent('E2'))?.id, other.id);
      assert.equal(await store.tasks.forEvent('E3'), null);
      await store.tasks.save({ ...first, inbox_event: 'E3', updated: 200 });
      assert.equal(await store.tasks.forEvent('E1'), null);
      assert.equal((await store.tasks.forEvent('E3'))?.id, first.id);
    });

    it("finds a principal's newest turn-starting task past any number of later command tasks", async () => {
      const store = current();
      const turn = taskRecord({ id: '01D0000000000000000000000A', inbox_event: 'T1', context_id: 'ctx-turn' });
      const other = taskRecord({ id: '01D0000000000000000000000B', inbox_event: 'T2', principal: 'bob' });
      await store.tasks.save(turn);
      await store.tasks.save(other);
      // Sixty later command tasks (no inbox event): a look at the 50 newest tasks would not reach the turn.
      for (let i = 0; i < 60; i++) {
        await store.tasks.save(
          taskRecord({ id: `01D00000000000000000001${String(i).padStart(3, '0')}`, inbox_event: null }),
        );
      }
      assert.equal((await store.tasks.latestTurn('alice'))?.context_id, 'ctx-turn');
      assert.equal((await store.tasks.latestTurn('bob'))?.id, other.id);
      assert.equal(await store.tasks.latestTurn('carol'), null);
    });

    it('commits transcript, inbox done and the task terminal state together in completeInbox', async () => {
      const store = current();
      const event = inboxEvent({ dedupe_key: 'fold' });
      await store.inbox.accept(event);
      const task = taskRecord({ inbox_event: event.id });
      await store.tasks.save(task);
      const conv = conversation({ messages: [userMsg('q'), userMsg('a')] });
      const done: TaskRecord = { ...task, state: 'completed', result: 'a', message: 'a', updated: 200 };
      const conversations = [{ conversation: conv, expectedRevision: 0 }];
      await store.inbox.complete(event.id, { outcome: { status: 'completed', reply: 'a' }, conversations, task: done });
      assert.deepEqual(await store.tasks.get(task.id), done);
      assert.deepEqual(
        (await store.conversations.load()).map((s) => s.conversation),
        [conv],
      );
      assert.equal((await store.inbox.find(event.id))?.status, 'done');
      assert.deepEqual(await store.inbox.claim('test', 60_000, 0), []);
    });

    it('writes nothing from completeInbox when its task cannot be stored', async () => {
      const store = current();
      const event = inboxEvent();
      await store.inbox.accept(event);
      const task = taskRecord({ inbox_event: event.id });
      await store.tasks.save(task);
      const unstorable = { ...task, state: 'completed', message: 10n } as unknown as TaskRecord;
      const conv = conversation({ messages: [userMsg('q')] });
      const conversations = [{ conversation: conv, expectedRevision: 0 }];
      const fold = { outcome: { status: 'completed' as const, reply: 'a' }, conversations, task: unstorable };
      await assert.rejects(store.inbox.complete(event.id, fold));
      assert.deepEqual(await store.tasks.get(task.id), task);
      assert.deepEqual(
        (await store.conversations.load()).map((s) => s.conversation),
        [],
      );
      assert.deepEqual(await store.inbox.claim('test', 60_000, 0), [event]);
    });

    it('leaves tasks alone when completeInbox has no task', async () => {
      const store = current();
      const event = inboxEvent();
      await store.inbox.accept(event);
      const task = taskRecord({ inbox_event: event.id });
      await store.tasks.save(task);
      await store.inbox.complete(event.id, {
        outcome: { status: 'failed', reply: '', error: 'boom' },
        conversations: [],
      });
      assert.deepEqual(await store.tasks.get(task.id), task);
      assert.equal((await store.inbox.find(event.id))?.outcome?.error, 'boom');
    });

    it('never overwrites a terminal task: neither a save nor the fold in completeInbox', async () => {
      const store = current();
      const event = inboxEvent();
      const working = taskRecord({ inbox_event: event.id });
      await store.inbox.accept(event, working);
      const moved = { ...working, state: 'input_required' as const, updated: 110 };
      await store.tasks.save(moved);
      assert.deepEqual(await store.tasks.get(working.id), moved, 'premise: a live task is replaced by a save');
      const canceled = { ...working, state: 'canceled' as const, message: 'canceled', updated: 120 };
      await store.tasks.save(canceled);
      await store.tasks.save({ ...working, state: 'working', updated: 130 });
      await store.inbox.complete(event.id, {
        outcome: { status: 'completed', reply: 'late' },
        conversations: [],
        task: { ...working, state: 'completed', result: 'late', updated: 140 },
      });
      assert.deepEqual(await store.tasks.get(working.id), canceled, 'the first end stays');
      assert.equal((await store.inbox.find(event.id))?.status, 'done', 'the rest of the fold still commits');
    });
  });
}
