// The Store behaviour suite, run over every implementation (memoryStore.test.ts, sqliteStore.test.ts):
// whatever a store does within one open, each implementation must do alike.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Conversation, Summary } from '../../../src/domain/conversation.js';
import type { Plan } from '../../../src/domain/plan.js';
import type { Store } from '../../../src/store/store.js';
import { conversation, inboxEvent, mixedMessages, userMsg } from './storeFixtures.js';
import { describeTasks } from './taskBehaviour.js';

/** Registers the behaviour suite for the store `open()` returns (a fresh, empty store each call). */
export function describeStoreBehaviour(name: string, open: () => Store): void {
  describe(`Store behaviour: ${name}`, () => {
    let store: Store;
    beforeEach(() => {
      store = open();
    });
    afterEach(() => store.close());

    describeInbox(() => store);
    describeConversations(() => store);
    describeMemory(() => store);
    describeTasks(() => store);

    it('counts each sequence up from 1 on its own', () => {
      assert.deepEqual([store.nextSequence('turn'), store.nextSequence('turn'), store.nextSequence('turn')], [1, 2, 3]);
      assert.equal(store.nextSequence('other'), 1);
    });

    it('saves budget counters, replacing by scope and window', () => {
      const row = { scope: 'conversation:c1', window: 'day@00:00', index: 19_700, tokens: 10, requests: 1 };
      store.saveBudgetCounters([row]);
      store.saveBudgetCounters([{ ...row, tokens: 25 }]);
      assert.deepEqual(store.loadBudgetCounters(), [{ ...row, tokens: 25 }]);
    });

    it('reports a generation of at least 1', () => {
      assert.ok(store.generation >= 1);
    });
  });
}

function describeInbox(current: () => Store): void {
  describe('inbox', () => {
    it('returns an accepted event as pending, unchanged', () => {
      const event = inboxEvent({ dedupe_key: 'startup' });
      assert.equal(current().acceptInbox(event), true);
      assert.deepEqual(current().pendingInbox(), [event]);
    });

    it('refuses a second event with the same dedupe key and writes nothing', () => {
      const store = current();
      const first = inboxEvent({ dedupe_key: 'prompt' });
      assert.equal(store.acceptInbox(first), true);
      const second = inboxEvent({ dedupe_key: 'prompt', payload: { context_id: 'x', text: 'other' } });
      assert.equal(store.acceptInbox(second), false);
      assert.deepEqual(store.pendingInbox(), [first]);
      assert.equal(store.findInboxByDedupe('prompt')?.id, first.id);
    });

    it('refuses an event whose id is already stored', () => {
      const store = current();
      const event = inboxEvent();
      assert.equal(store.acceptInbox(event), true);
      assert.equal(store.acceptInbox({ ...event, ts: event.ts + 1 }), false);
      assert.deepEqual(store.pendingInbox(), [event]);
    });

    it('replays pending events by ts, then id', () => {
      const store = current();
      const late = inboxEvent({ id: '01AAAAAAAAAAAAAAAAAAAAAAAA', ts: 30 });
      const tieB = inboxEvent({ id: '01BBBBBBBBBBBBBBBBBBBBBBBB', ts: 20 });
      const tieA = inboxEvent({ id: '01AAAAAAAAAAAAAAAAAAAAAAAB', ts: 20 });
      const early = inboxEvent({ id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', ts: 10 });
      for (const e of [late, tieB, tieA, early]) assert.equal(store.acceptInbox(e), true);
      assert.deepEqual(
        store.pendingInbox().map((e) => e.id),
        [early.id, tieA.id, tieB.id, late.id],
      );
    });

    it('drops a done event from pending and keeps its outcome by dedupe key', () => {
      const store = current();
      const event = inboxEvent({ dedupe_key: 'k1', principal: null });
      store.acceptInbox(event);
      const outcome = { status: 'completed' as const, reply: 'hi there', finish_status: 'stop' };
      store.markInboxDone(event.id, outcome);
      assert.deepEqual(store.pendingInbox(), []);
      assert.deepEqual(store.findInboxByDedupe('k1'), { ...event, status: 'done', outcome });
    });

    it('marks done idempotently, keeps the first outcome when none is given, ignores unknown ids', () => {
      const store = current();
      const event = inboxEvent({ dedupe_key: 'k2' });
      store.acceptInbox(event);
      const outcome = { status: 'failed' as const, reply: '', error: 'boom' };
      store.markInboxDone(event.id, outcome);
      store.markInboxDone(event.id);
      store.markInboxDone('01UNKNOWNUNKNOWNUNKNOWNUNK');
      assert.deepEqual(store.findInboxByDedupe('k2')?.outcome, outcome);
      assert.equal(store.findInboxByDedupe('k2')?.status, 'done');
    });

    it('finds a pending event by dedupe key and nothing for an unknown key', () => {
      const store = current();
      const event = inboxEvent({ dedupe_key: 'k3' });
      store.acceptInbox(event);
      assert.deepEqual(store.findInboxByDedupe('k3'), { ...event, status: 'pending' });
      assert.equal(store.findInboxByDedupe('nope'), null);
    });
  });
}

const summary: Summary = {
  goals: ['ship'],
  decisions: ['use sqlite'],
  open: [],
  facts: ['f1'],
  narrative: 'so far',
  covers_messages: 4,
  updated: 200,
};

const plan: Plan = {
  goal: 'ship it',
  items: [{ id: 1, title: 'write', status: 'in_progress', note: 'n', updated: 150 }],
  next_id: 2,
  created: 120,
  updated: 150,
};

function describeConversations(current: () => Store): void {
  describe('conversations', () => {
    it('round-trips a conversation with every message shape, summary and plan', () => {
      const conv = conversation({ kind: 'root', id: 'root', messages: mixedMessages(), summary, plan, turns: 3 });
      current().saveConversations([conv]);
      assert.deepEqual(current().loadConversations(), [conv]);
    });

    it('appends messages across saves and reloads the full transcript in order', () => {
      const store = current();
      const conv = conversation({ messages: [userMsg('m0'), userMsg('m1')] });
      store.saveConversations([conv]);
      conv.messages.push(userMsg('m2'), userMsg('m3'));
      conv.turns = 1;
      store.saveConversations([conv]);
      conv.messages.push(userMsg('m4'));
      store.saveConversations([conv]);
      const [loaded] = store.loadConversations();
      assert.deepEqual(
        loaded?.messages.map((m) => (m.role === 'user' ? m.text : '')),
        ['m0', 'm1', 'm2', 'm3', 'm4'],
      );
      assert.equal(loaded?.turns, 1);
    });

    it('rewrites the transcript when the version changes with fewer messages', () => {
      const store = current();
      const conv = conversation({ messages: [userMsg('a'), userMsg('b'), userMsg('c'), userMsg('d')] });
      store.saveConversations([conv]);
      const compacted: Conversation = { ...conv, version: 2, summary, messages: [userMsg('d')] };
      store.saveConversations([compacted]);
      assert.deepEqual(store.loadConversations(), [compacted]);
    });

    it('rewrites when the same version comes back shorter', () => {
      const store = current();
      store.saveConversations([conversation({ messages: [userMsg('a'), userMsg('b')] })]);
      const shorter = conversation({ messages: [userMsg('z')] });
      store.saveConversations([shorter]);
      assert.deepEqual(store.loadConversations(), [shorter]);
    });

    it('saves several conversations at once and keeps them apart', () => {
      const store = current();
      const a = conversation({ id: 'a', messages: [userMsg('a0')] });
      const b = conversation({ id: 'b', messages: [userMsg('b0'), userMsg('b1')], plan });
      store.saveConversations([a, b]);
      a.messages.push(userMsg('a1'));
      store.saveConversations([a]);
      assert.deepEqual(store.loadConversations(), [a, b]);
    });

    it('is not changed by later edits to the saved objects', () => {
      const store = current();
      const conv = conversation({ messages: [userMsg('x')], plan });
      store.saveConversations([conv]);
      const saved = structuredClone(conv);
      conv.plan = null;
      conv.turns = 9;
      assert.deepEqual(store.loadConversations(), [saved]);
    });
  });
}

function describeMemory(current: () => Store): void {
  describe('memory', () => {
    it('sets, gets and overwrites a value', () => {
      const store = current();
      store.memorySet({ key: 'k', value: { a: [1, 2] }, expires: null, updated: 10 });
      assert.deepEqual(store.memoryGet('k', 11), { key: 'k', value: { a: [1, 2] }, expires: null, updated: 10 });
      store.memorySet({ key: 'k', value: 'v2', expires: null, updated: 12 });
      assert.equal(store.memoryGet('k', 13)?.value, 'v2');
      assert.equal(store.memoryGet('absent', 13), null);
    });

    it('reads an entry as absent once its expiry has passed', () => {
      const store = current();
      store.memorySet({ key: 'ttl', value: 1, expires: 1000, updated: 0 });
      assert.equal(store.memoryGet('ttl', 1000)?.value, 1);
      assert.equal(store.memoryGet('ttl', 1001), null);
      assert.deepEqual(store.memoryList('', 10, 1001), { keys: [], truncated: false });
    });

    it('lists keys under a prefix, sorted, limited, and says when it truncated', () => {
      const store = current();
      for (const key of ['user/c', 'user/a', 'other', 'user/b', 'user/d', 'usex', 'user']) {
        store.memorySet({ key, value: key, expires: null, updated: 0 });
      }
      store.memorySet({ key: 'user/old', value: 0, expires: 5, updated: 0 });
      assert.deepEqual(store.memoryList('user/', 3, 10), { keys: ['user/a', 'user/b', 'user/c'], truncated: true });
      assert.deepEqual(store.memoryList('user/', 4, 10), {
        keys: ['user/a', 'user/b', 'user/c', 'user/d'],
        truncated: false,
      });
      assert.deepEqual(store.memoryList('', 2, 10), { keys: ['other', 'user'], truncated: true });
      assert.deepEqual(store.memoryList('zzz', 5, 10), { keys: [], truncated: false });
    });

    it('deletes a key and says whether it existed', () => {
      const store = current();
      store.memorySet({ key: 'gone', value: true, expires: null, updated: 0 });
      assert.equal(store.memoryDelete('gone'), true);
      assert.equal(store.memoryDelete('gone'), false);
      assert.equal(store.memoryGet('gone', 0), null);
    });
  });
}
