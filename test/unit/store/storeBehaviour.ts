// The Store behaviour suite, run over every backend (memoryStore.test.ts, sqliteStore.test.ts): whatever a store
// does within one open, each backend must do alike. A new backend adds only a factory.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Store } from '../../../src/store/store.js';
import { describeFeed } from './feedBehaviour.js';
import { describeJournal } from './journalBehaviour.js';
import { describeConversations, describeMemory } from './storeBehaviourParts.js';
import { conversation, inboxEvent, taskRecord, userMsg } from './storeFixtures.js';
import { describeSubagents } from './subagentBehaviour.js';
import { describeTasks } from './taskBehaviour.js';
import { describeTimers } from './timerBehaviour.js';
import { describeWorkflows } from './workflowBehaviour.js';

/** Registers the behaviour suite for the store `open()` resolves with (a fresh, empty store each call). */
export function describeStoreBehaviour(name: string, open: () => Promise<Store>): void {
  describe(`Store behaviour: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    describeInbox(() => store);
    describeConversations(() => store);
    describeMemory(() => store);
    describeTasks(() => store);
    describeCounters(() => store);
    describeSubagents(() => store);
    describeTimers(() => store);
    describeFeed(() => store);
    describeWorkflows(() => store);
    describeJournal(() => store);

    it('reports a generation of at least 1', () => {
      assert.ok(store.generation >= 1);
    });
  });
}

/** Every pending event, as a single owner sees them. */
const pending = (store: Store) => store.inbox.claim('test', 60_000, 0);

function describeInbox(current: () => Store): void {
  describe('inbox', () => {
    it('returns an accepted event as pending, unchanged', async () => {
      const event = inboxEvent({ dedupe_key: 'startup' });
      assert.deepEqual(await current().inbox.accept(event), { record: { ...event, status: 'pending' }, created: true });
      assert.deepEqual(await pending(current()), [event]);
    });

    it('answers a second accept with the same key from the same principal with the first record', async () => {
      const store = current();
      const first = inboxEvent({ dedupe_key: 'm-1' });
      await store.inbox.accept(first);
      const retry = inboxEvent({ dedupe_key: 'm-1', payload: { context_id: 'x', text: 'other' } });
      assert.deepEqual(await store.inbox.accept(retry), { record: { ...first, status: 'pending' }, created: false });
      assert.deepEqual(await pending(store), [first]);
      assert.equal((await store.inbox.findByKey('alice', 'm-1'))?.id, first.id);
    });

    it("scopes a key to its principal: another principal's identical key is a different message", async () => {
      const store = current();
      const alice = inboxEvent({ dedupe_key: 'm-1', principal: 'alice' });
      const bob = inboxEvent({ dedupe_key: 'm-1', principal: 'bob' });
      assert.equal((await store.inbox.accept(alice)).created, true);
      assert.equal((await store.inbox.accept(bob)).created, true);
      assert.equal((await store.inbox.findByKey('bob', 'm-1'))?.id, bob.id);
      assert.equal((await store.inbox.findByKey(null, 'm-1'))?.id, undefined);
      assert.equal((await pending(store)).length, 2);
    });

    it('keeps a done record, with its outcome, for a retry of its key', async () => {
      const store = current();
      const event = inboxEvent({ dedupe_key: 'k1', principal: null });
      await store.inbox.accept(event);
      const outcome = { status: 'completed' as const, reply: 'hi there', finish_status: 'failed' as const };
      await store.inbox.complete(event.id, { outcome, conversations: [] });
      assert.deepEqual(await pending(store), []);
      assert.deepEqual(await store.inbox.findByKey(null, 'k1'), { ...event, status: 'done', outcome });
      const retry = await store.inbox.accept(inboxEvent({ dedupe_key: 'k1', principal: null }));
      assert.deepEqual(retry, { record: { ...event, status: 'done', outcome }, created: false });
    });

    it('completes idempotently (a retried fold) and ignores an unknown id', async () => {
      const store = current();
      const event = inboxEvent({ dedupe_key: 'k-twice', principal: null });
      await store.inbox.accept(event);
      const outcome = { status: 'completed' as const, reply: 'once' };
      await store.inbox.complete(event.id, { outcome, conversations: [] });
      await store.inbox.complete(event.id, { outcome, conversations: [] });
      assert.deepEqual(await store.inbox.find(event.id), { ...event, status: 'done', outcome });
      assert.deepEqual(await pending(store), []);
      const unknown = '01UNKNOWNUNKNOWNUNKNOWNUNK';
      await store.inbox.complete(unknown, { outcome, conversations: [] });
      assert.equal(await store.inbox.find(unknown), null, 'no record appears for an id never accepted');
    });

    it('commits the task that follows an event with it, and none for a duplicate', async () => {
      const store = current();
      const event = inboxEvent({ dedupe_key: 'm-2' });
      const task = taskRecord({ inbox_event: event.id });
      assert.equal((await store.inbox.accept(event, task)).created, true);
      assert.deepEqual(await store.tasks.forEvent(event.id), task);
      const retry = inboxEvent({ dedupe_key: 'm-2' });
      const second = taskRecord({ inbox_event: retry.id });
      assert.equal((await store.inbox.accept(retry, second)).created, false);
      assert.equal(await store.tasks.get(second.id), null);
    });

    it('refuses an event whose id is already stored', async () => {
      const store = current();
      const event = inboxEvent();
      await store.inbox.accept(event);
      assert.equal((await store.inbox.accept({ ...event, ts: event.ts + 1 })).created, false);
      assert.deepEqual(await pending(store), [event]);
    });

    it('claims pending events by ts, then id', async () => {
      const store = current();
      const late = inboxEvent({ id: '01AAAAAAAAAAAAAAAAAAAAAAAA', ts: 30 });
      const tieB = inboxEvent({ id: '01BBBBBBBBBBBBBBBBBBBBBBBB', ts: 20 });
      const tieA = inboxEvent({ id: '01AAAAAAAAAAAAAAAAAAAAAAAB', ts: 20 });
      const early = inboxEvent({ id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', ts: 10 });
      for (const e of [late, tieB, tieA, early]) await store.inbox.accept(e);
      assert.deepEqual(
        (await pending(store)).map((e) => e.id),
        [early.id, tieA.id, tieB.id, late.id],
      );
    });

    it('leaves events leased to another owner until the lease runs out; an owner reclaims its own', async () => {
      const store = current();
      const event = inboxEvent();
      await store.inbox.accept(event);
      assert.deepEqual(await store.inbox.claim('a', 1_000, 100), [event]);
      assert.deepEqual(await store.inbox.claim('b', 1_000, 500), [], 'a live lease of another owner');
      assert.deepEqual(await store.inbox.claim('a', 1_000, 600), [event], 'the owner takes its own back');
      assert.deepEqual(await store.inbox.claim('b', 1_000, 1_601), [event], 'the lease ran out');
    });

    it('finds an event by id and by key, and nothing for unknown ones', async () => {
      const store = current();
      const event = inboxEvent({ dedupe_key: 'k3' });
      await store.inbox.accept(event);
      assert.deepEqual(await store.inbox.find(event.id), { ...event, status: 'pending' });
      assert.deepEqual(await store.inbox.findByKey('alice', 'k3'), { ...event, status: 'pending' });
      assert.equal(await store.inbox.findByKey('alice', 'nope'), null);
      assert.equal(await store.inbox.find('01UNKNOWNUNKNOWNUNKNOWNUNK'), null);
    });

    it('writes nothing from complete when a conversation moved past the expected revision', async () => {
      const store = current();
      const event = inboxEvent();
      await store.inbox.accept(event);
      const conv = conversation({ messages: [userMsg('q')] });
      assert.equal(await store.conversations.commit(conv, 0), 1);
      const stale = { ...conv, messages: [userMsg('q'), userMsg('a')] };
      const fold = {
        outcome: { status: 'completed' as const, reply: 'a' },
        conversations: [{ conversation: stale, expectedRevision: 0 }],
      };
      await assert.rejects(store.inbox.complete(event.id, fold), /expected revision 0 but the store holds 1/);
      assert.deepEqual(await pending(store), [event]);
      assert.deepEqual(await store.conversations.load(), [{ conversation: conv, revision: 1 }]);
      const fresh = { ...fold, conversations: [{ conversation: stale, expectedRevision: 1 }] };
      assert.deepEqual(await store.inbox.complete(event.id, fresh), [2]);
      assert.equal((await store.inbox.find(event.id))?.status, 'done');
    });
  });
}

function describeCounters(current: () => Store): void {
  it('counts each sequence up from 1 on its own, and reserves blocks', async () => {
    const { sequences } = current();
    assert.deepEqual(
      [await sequences.next('turn'), await sequences.next('turn'), await sequences.next('turn')],
      [1, 2, 3],
    );
    assert.equal(await sequences.next('other'), 1);
    assert.equal(await sequences.next('turn', 100), 103, 'the last of 4..103');
    assert.equal(await sequences.next('turn'), 104);
  });

  it('adds budget deltas: the same bucket sums, a newer bucket replaces, an older one is ignored', async () => {
    const { budget } = current();
    const row = { scope: 'conversation:c1', window: 'day@00:00', index: 19_700, tokens: 10, requests: 1 };
    await budget.add([row]);
    await budget.add([{ ...row, tokens: 25, requests: 2 }]);
    assert.deepEqual(await budget.load(), [{ ...row, tokens: 35, requests: 3 }]);
    await budget.add([{ ...row, index: 19_699, tokens: 1_000 }]);
    assert.deepEqual(await budget.load(), [{ ...row, tokens: 35, requests: 3 }]);
    await budget.add([{ ...row, index: 19_701, tokens: 5, requests: 1 }]);
    assert.deepEqual(await budget.load(), [{ ...row, index: 19_701, tokens: 5, requests: 1 }]);
  });

  it('keeps two writers of one counter from losing either increment (no last-writer-wins)', async () => {
    const { budget } = current();
    const row = { scope: 'instance', window: 'lifetime', index: 0, tokens: 0, requests: 0 };
    await Promise.all([budget.add([{ ...row, tokens: 7 }]), budget.add([{ ...row, tokens: 5 }])]);
    assert.equal((await budget.load())[0]?.tokens, 12);
  });
}
