// SendMessage idempotency on the paths that start no new turn: an answer to a task's question, and a message
// only noted (agent.wake_on without a2a_message). A retry with the same messageId returns the task as it is and
// leaves no second note in the conversation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import { noteKey } from '../../../src/a2a/sentMessages.js';
import { TaskBackend } from '../../../src/a2a/taskBackend.js';
import { TaskFeed } from '../../../src/a2a/taskFeed.js';
import { createLogger } from '../../../src/obs/log.js';
import type { Msg } from '../../../src/protocol/messages.js';
import { type Rig, startRig } from '../harness.js';
import { waitUntil, within } from '../wait.js';

const ALICE: Principal = { id: 'user:alice', role: 'user', grants: [] };

const mentions = (messages: readonly Msg[] | undefined, text: string) =>
  (messages ?? []).filter((m) => JSON.stringify(m).includes(text)).length;

describe('SendMessage idempotency beyond new messages', () => {
  it('a retried answer (same messageId) after the task went back to working adds no note', async () => {
    const rig = await startRig(
      {
        turns: [
          { tool_calls: [{ name: 'ask_human', arguments: { question: 'Which colour?' } }] },
          { content: 'painted', delay_ms: 1_500 },
        ],
      },
      {},
      { tasks: true },
    );
    try {
      const backend = rig.backend;
      assert.ok(backend);
      backend.setListening(true); // a person is reachable
      const task = await backend.send(ALICE, { text: 'paint it', contextId: 'c', messageId: 'm-1' });
      const asked = async () => (await backend.getTask(ALICE, task.id))?.state === 'input_required';
      await pollAsync(asked, 20_000, 'the question');
      const answer = { text: 'blue', taskId: task.id, messageId: 'answer-1' };
      const answered = await backend.send(ALICE, answer);
      assert.equal(answered.state, 'working');
      const retry = await backend.send(ALICE, answer);
      assert.equal(retry.state, 'working', 'premise: the retry lands while the turn still runs');
      assert.equal(retry.id, task.id);
      assert.equal(rig.named('wake.note').length, 0, 'the retry left no note');
      // The premise: a reply with a new messageId while working is noted (the path the retry took before).
      await backend.send(ALICE, { text: 'also green', taskId: task.id, messageId: 'answer-2' });
      assert.equal(rig.named('wake.note').length, 1);
      const done = await within(backend.settled(ALICE, task.id, new AbortController().signal), 20_000, 'done');
      assert.equal(done?.state, 'completed');
      const late = await backend.send(ALICE, answer);
      assert.equal(late.state, 'completed', 'a retry after the end gets the finished task, and starts nothing');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.equal(rig.named('turn.spawn').length, 1, 'one turn');
      assert.equal(rig.named('wake.note').length, 1);
      assert.equal(mentions(rig.sup.conversation('user:alice/c')?.messages, 'blue'), 1, 'the answer, once');
    } finally {
      await rig.close();
    }
  });

  it('a retry of a message whose task was pruned gets that task as it ended, and starts nothing', async () => {
    const rig = await startRig(
      { turns: [{ content: 'the answer' }, { content: 'a second turn' }] },
      {},
      { tasks: true },
    );
    try {
      const backend = rig.backend;
      assert.ok(backend);
      const req = { text: 'once only', contextId: 'c', messageId: 'pruned-1' };
      const first = await backend.send(ALICE, req);
      const done = await within(backend.settled(ALICE, first.id, new AbortController().signal), 20_000, 'done');
      assert.equal(done?.state, 'completed');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      // Retention drops every terminal task (a2a.tasks.retain 0); the inbox row keeps the turn's outcome.
      assert.equal(await rig.store.tasks.prune(0, Date.now() + 1), 1);
      assert.equal(await rig.store.tasks.get(first.id), null, 'premise: the task is gone');
      const retry = await backend.send(ALICE, req);
      // Before, the retry rebuilt the task as a fresh WORKING one that no turn would ever end.
      assert.equal(retry.id, first.id, 'the same task');
      assert.equal(retry.state, 'completed');
      assert.equal(retry.result, 'the answer');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.equal(rig.named('turn.spawn').length, 1, 'no second turn');
      assert.equal(await rig.store.tasks.get(first.id), null, 'a replay writes nothing');
      // The premise of "same messageId": another one is a new message with its own turn.
      const other = await backend.send(ALICE, { ...req, messageId: 'pruned-2' });
      assert.notEqual(other.id, first.id);
    } finally {
      await rig.close();
    }
  });

  it('with wake_on without a2a_message, a retry gets the same noted task and leaves one note', async () => {
    const rig = await startRig({ turns: [{ content: 'unused' }] });
    try {
      const backend = notingBackend(rig);
      const req = { text: 'for later', contextId: 'c', messageId: 'note-1' };
      const first = await backend.send(ALICE, req);
      assert.equal(first.state, 'completed');
      const retry = await backend.send(ALICE, req);
      assert.equal(retry.id, first.id, 'the retry answers with the first task');
      assert.deepEqual(retry, first);
      // The premise: another messageId is another message, noted again.
      const other = await backend.send(ALICE, { ...req, messageId: 'note-2' });
      assert.notEqual(other.id, first.id);
      await waitUntil(() => rig.named('wake.note').length >= 2, 5_000, 'the notes');
      assert.equal(rig.named('wake.note').length, 2, 'one note per messageId');
      assert.equal(rig.named('inbox.accepted').length, 0, 'no turn was asked for');
    } finally {
      await rig.close();
    }
  });

  it('a noted message is noted once when the store fails where a crash would stop the first send', async () => {
    const rig = await startRig({ turns: [{ content: 'unused' }] });
    try {
      // The first write of the key fails, as a crash there would end the send. Noting first and remembering after
      // left the note behind with no key, so the retry (its task never saved) noted it a second time.
      let failures = 1;
      const timers = rig.store.timers;
      const flaky = {
        ...timers,
        remember: (key: string, at: number) => {
          if (failures-- > 0) return Promise.reject(new Error('store write failed'));
          return timers.remember(key, at);
        },
      };
      const store = new Proxy(rig.store, { get: (t, p) => (p === 'timers' ? flaky : Reflect.get(t, p, t)) });
      const backend = notingBackend(rig, undefined, store);
      const req = { text: 'noted once', contextId: 'c', messageId: 'note-crash' };
      await assert.rejects(backend.send(ALICE, req));
      const retry = await backend.send(ALICE, req);
      assert.equal(retry.state, 'completed');
      // Two concurrent retries after it: the key's claim decides, neither notes again.
      await Promise.all([backend.send(ALICE, req), backend.send(ALICE, req)]);
      await waitUntil(() => rig.named('wake.note').length >= 1, 5_000, 'the note');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(rig.named('wake.note').length, 1, 'one note');
      assert.equal(mentions(rig.sup.conversation('user:alice/c')?.messages, 'noted once'), 1, 'one transcript entry');
      assert.equal(await rig.store.timers.remember(noteKey(retry.id), 0), false, 'the key is claimed');
    } finally {
      await rig.close();
    }
  });

  it('a retried noted message whose task retention pruned leaves no second note or feed entry', async () => {
    const rig = await startRig({ turns: [{ content: 'unused' }] });
    try {
      const published: string[] = [];
      const sink = { publish: (e: { kind: string }) => void published.push(e.kind), committed: () => {} };
      const backend = notingBackend(rig, new TaskFeed(sink, () => ({})));
      const req = { text: 'for later', contextId: 'c', messageId: 'note-pruned' };
      const first = await backend.send(ALICE, req);
      await waitUntil(() => rig.named('wake.note').length === 1, 5_000, 'the note');
      const feedBefore = published.length;
      // The premise: retention dropped the noted task (the retry found it there before and so noted nothing).
      assert.equal(await rig.store.tasks.prune(0, Number.MAX_SAFE_INTEGER), 1);
      assert.equal(await rig.store.tasks.get(first.id), null);
      const retry = await backend.send(ALICE, req);
      assert.equal(retry.id, first.id, 'the retry answers with the same task id');
      assert.equal(retry.state, 'completed');
      await new Promise((r) => setTimeout(r, 200));
      // Without the remembered key the retry noted the message again and published a second task entry.
      assert.equal(rig.named('wake.note').length, 1, 'one note');
      assert.equal(published.length, feedBefore, 'no second feed entry');
      assert.equal(mentions(rig.sup.conversation('user:alice/c')?.messages, 'for later'), 1, 'one transcript entry');
    } finally {
      await rig.close();
    }
  });
});

/** A backend whose messages are only noted (agent.wake_on without a2a_message). */
function notingBackend(rig: Rig, feed?: TaskFeed, store: Rig['store'] = rig.store): TaskBackend {
  return new TaskBackend({
    store,
    log: createLogger({ level: 'error', write: () => {} }),
    now: Date.now,
    drain: () => {},
    supervisor: rig.sup,
    accept: (input) => Promise.resolve(rig.sup.accept(input)),
    wake: { wake_on: ['human_reply'], on_workflow_finished: 'ignore' },
    ...(feed ? { feed } : {}),
  });
}

async function pollAsync(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
