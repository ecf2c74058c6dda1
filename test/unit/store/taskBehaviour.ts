// The task part of the Store behaviour suite (storeBehaviour.ts): saving, reading, listing and the atomic
// fold (completeInbox with a task), alike in every implementation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskRecord } from '../../../src/domain/task.js';
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
    it('round-trips a task with every field, and replaces it on a second save', () => {
      const store = current();
      store.saveTask(fullTask);
      assert.deepEqual(store.getTask(fullTask.id), fullTask);
      const done: TaskRecord = { ...fullTask, state: 'completed', question: null, result: 'blue', updated: 150 };
      store.saveTask(done);
      assert.deepEqual(store.getTask(fullTask.id), done);
      assert.deepEqual(store.listTasks({ principal: null, limit: 10 }), [done]);
      assert.equal(store.getTask('01NOSUCHTASK00000000000000'), null);
    });

    it('is not changed by later edits to the saved or returned objects', () => {
      const store = current();
      const task = structuredClone(fullTask);
      store.saveTask(task);
      task.history.push({ state: 'failed', ts: 1 });
      task.state = 'failed';
      const read = store.getTask(task.id);
      if (read?.question) read.question.text = 'edited';
      assert.deepEqual(store.getTask(task.id), fullTask);
    });

    it('lists newest first by updated, then id, filtered by principal and context, limited', () => {
      const store = current();
      const a = taskRecord({ id: '01A0000000000000000000000A', updated: 300 });
      const b = taskRecord({ id: '01A0000000000000000000000B', updated: 300, context_id: 'ctx-2' });
      const c = taskRecord({ id: '01A0000000000000000000000C', updated: 100 });
      const d = taskRecord({ id: '01A0000000000000000000000D', updated: 200, principal: 'bob' });
      for (const t of [c, a, d, b]) store.saveTask(t);
      const ids = (filter: Parameters<Store['listTasks']>[0]) => store.listTasks(filter).map((t) => t.id);
      assert.deepEqual(ids({ principal: null, limit: 10 }), [b.id, a.id, d.id, c.id]);
      assert.deepEqual(ids({ principal: 'alice', limit: 10 }), [b.id, a.id, c.id]);
      assert.deepEqual(ids({ principal: 'alice', context_id: 'ctx-1', limit: 10 }), [a.id, c.id]);
      assert.deepEqual(ids({ principal: null, context_id: 'ctx-2', limit: 10 }), [b.id]);
      assert.deepEqual(ids({ principal: 'alice', limit: 2 }), [b.id, a.id]);
      assert.deepEqual(ids({ principal: 'carol', limit: 10 }), []);
      assert.deepEqual(ids({ principal: null, limit: 0 }), []);
      assert.deepEqual(ids({ principal: null, limit: -1 }), [], 'a negative limit is no rows, never "all"');
    });

    it('moves a task up the listing when it is updated', () => {
      const store = current();
      const old = taskRecord({ id: '01B0000000000000000000000A', updated: 100 });
      const recent = taskRecord({ id: '01B0000000000000000000000B', updated: 200 });
      store.saveTask(old);
      store.saveTask(recent);
      store.saveTask({ ...old, state: 'completed', updated: 300 });
      assert.deepEqual(
        store.listTasks({ principal: 'alice', limit: 10 }).map((t) => [t.id, t.state]),
        [
          [old.id, 'completed'],
          [recent.id, 'working'],
        ],
      );
    });

    it('finds the task an inbox event answers, the newest when a continued task was relinked', () => {
      const store = current();
      const first = taskRecord({ id: '01C0000000000000000000000A', inbox_event: 'E1', updated: 100 });
      const other = taskRecord({ id: '01C0000000000000000000000B', inbox_event: 'E2', updated: 100 });
      const command = taskRecord({ id: '01C0000000000000000000000C', inbox_event: null });
      for (const t of [first, other, command]) store.saveTask(t);
      assert.equal(store.taskForEvent('E1')?.id, first.id);
      assert.equal(store.taskForEvent('E2')?.id, other.id);
      assert.equal(store.taskForEvent('E3'), null);
      store.saveTask({ ...first, inbox_event: 'E3', updated: 200 });
      assert.equal(store.taskForEvent('E1'), null);
      assert.equal(store.taskForEvent('E3')?.id, first.id);
    });

    it('commits transcript, inbox done and the task terminal state together in completeInbox', () => {
      const store = current();
      const event = inboxEvent({ dedupe_key: 'fold' });
      store.acceptInbox(event);
      const task = taskRecord({ inbox_event: event.id });
      store.saveTask(task);
      const conv = conversation({ messages: [userMsg('q'), userMsg('a')] });
      const done: TaskRecord = { ...task, state: 'completed', result: 'a', message: 'a', updated: 200 };
      store.completeInbox(event.id, { status: 'completed', reply: 'a' }, [conv], done);
      assert.deepEqual(store.getTask(task.id), done);
      assert.deepEqual(store.loadConversations(), [conv]);
      assert.equal(store.findInbox(event.id)?.status, 'done');
      assert.deepEqual(store.pendingInbox(), []);
    });

    it('writes nothing from completeInbox when its task cannot be stored', () => {
      const store = current();
      const event = inboxEvent();
      store.acceptInbox(event);
      const task = taskRecord({ inbox_event: event.id });
      store.saveTask(task);
      const unstorable = { ...task, state: 'completed', message: 10n } as unknown as TaskRecord;
      const conv = conversation({ messages: [userMsg('q')] });
      assert.throws(() => store.completeInbox(event.id, { status: 'completed', reply: 'a' }, [conv], unstorable));
      assert.deepEqual(store.getTask(task.id), task);
      assert.deepEqual(store.loadConversations(), []);
      assert.deepEqual(store.pendingInbox(), [event]);
    });

    it('leaves tasks alone when completeInbox has no task', () => {
      const store = current();
      const event = inboxEvent();
      store.acceptInbox(event);
      const task = taskRecord({ inbox_event: event.id });
      store.saveTask(task);
      store.completeInbox(event.id, { status: 'failed', reply: '', error: 'boom' }, []);
      assert.deepEqual(store.getTask(task.id), task);
      assert.equal(store.findInbox(event.id)?.outcome?.error, 'boom');
    });
  });
}
