// Conversations and memory in the Store behaviour suite (storeBehaviour.ts), alike in every backend.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Conversation, Summary } from '../../../src/domain/conversation.js';
import type { Goal } from '../../../src/domain/goal.js';
import type { Plan } from '../../../src/domain/plan.js';
import type { MemoryChange, Store } from '../../../src/store/store.js';
import { conversation, mixedMessages, userMsg } from './storeFixtures.js';

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

const loaded = async (store: Store) => (await store.conversations.load()).map((s) => s.conversation);

export function describeConversations(current: () => Store): void {
  describe('conversations', () => {
    it('round-trips a conversation with every message shape, summary and plan, at revision 1', async () => {
      const conv = conversation({ kind: 'root', id: 'root', messages: mixedMessages(), summary, plan, turns: 3 });
      assert.equal(await current().conversations.commit(conv, 0), 1);
      assert.deepEqual(await current().conversations.load(), [{ conversation: conv, revision: 1 }]);
    });

    it('appends messages across commits and reloads the full transcript in order', async () => {
      const store = current();
      const conv = conversation({ messages: [userMsg('m0'), userMsg('m1')] });
      await store.conversations.commit(conv, 0);
      conv.messages.push(userMsg('m2'), userMsg('m3'));
      conv.turns = 1;
      await store.conversations.commit(conv, 1);
      conv.messages.push(userMsg('m4'));
      assert.equal(await store.conversations.commit(conv, 2), 3);
      const [first] = await loaded(store);
      assert.deepEqual(
        first?.messages.map((m) => (m.role === 'user' ? m.text : '')),
        ['m0', 'm1', 'm2', 'm3', 'm4'],
      );
      assert.equal(first?.turns, 1);
    });

    it('refuses a commit on a stale revision and writes nothing (two writers cannot both append)', async () => {
      const store = current();
      const conv = conversation({ messages: [userMsg('a')] });
      await store.conversations.commit(conv, 0);
      await store.conversations.commit({ ...conv, messages: [userMsg('a'), userMsg('b')] }, 1);
      const other = { ...conv, messages: [userMsg('a'), userMsg('c')] };
      await assert.rejects(store.conversations.commit(other, 1), { code: 'store_conflict' });
      await assert.rejects(store.conversations.commit(conversation({ id: 'new' }), 3), { code: 'store_conflict' });
      assert.deepEqual(
        (await loaded(store))[0]?.messages.map((m) => (m.role === 'user' ? m.text : '')),
        ['a', 'b'],
      );
    });

    it('rewrites the transcript when the version changes with fewer messages', async () => {
      const store = current();
      const conv = conversation({ messages: [userMsg('a'), userMsg('b'), userMsg('c'), userMsg('d')] });
      await store.conversations.commit(conv, 0);
      const compacted: Conversation = { ...conv, version: 2, summary, messages: [userMsg('d')] };
      await store.conversations.commit(compacted, 1);
      assert.deepEqual(await loaded(store), [compacted]);
    });

    it('rewrites when the same version comes back shorter', async () => {
      const store = current();
      await store.conversations.commit(conversation({ messages: [userMsg('a'), userMsg('b')] }), 0);
      const shorter = conversation({ messages: [userMsg('z')] });
      await store.conversations.commit(shorter, 1);
      assert.deepEqual(await loaded(store), [shorter]);
    });

    it('keeps conversations apart, ordered by id', async () => {
      const store = current();
      const b = conversation({ id: 'b', messages: [userMsg('b0'), userMsg('b1')], plan });
      const a = conversation({ id: 'a', messages: [userMsg('a0')] });
      await store.conversations.commit(b, 0);
      await store.conversations.commit(a, 0);
      a.messages.push(userMsg('a1'));
      await store.conversations.commit(a, 1);
      assert.deepEqual(await current().conversations.load(), [
        { conversation: a, revision: 2 },
        { conversation: b, revision: 1 },
      ]);
    });

    it('loads one conversation by id (controls and revision too), or null for an unknown id', async () => {
      const store = current();
      const controls = { mode: 'plan' as const, goal: null, side_of: null, proposal: null };
      const a = conversation({ id: 'a', messages: mixedMessages(), summary, plan, controls });
      await store.conversations.commit(a, 0);
      await store.conversations.commit(conversation({ id: 'b', messages: [userMsg('b0')] }), 0);
      a.messages.push(userMsg('a1'));
      await store.conversations.commit(a, 1);
      assert.deepEqual(await store.conversations.get('a'), { conversation: a, revision: 2 });
      assert.equal(await store.conversations.get('missing'), null);
    });

    it("reads every conversation's head: owner, revision, stored bytes and an active goal, ordered by id", async () => {
      const store = current();
      const goal = { objective: 'o', status: 'active' } as unknown as Goal;
      const controls = { mode: 'execute' as const, goal, side_of: null, proposal: null };
      const messages = [userMsg('héllo'), userMsg('b1')];
      await store.conversations.commit(conversation({ id: 'b', principal: 'user:bob', messages, controls }), 0);
      await store.conversations.commit(conversation({ id: 'a', principal: null }), 0);
      const bytes = messages.reduce((sum, m) => sum + Buffer.byteLength(JSON.stringify(m)), 0);
      assert.deepEqual(await store.conversations.heads(), [
        { id: 'a', principal: null, revision: 1, bytes: 0, activeGoal: false },
        { id: 'b', principal: 'user:bob', revision: 1, bytes, activeGoal: true },
      ]);
    });

    it('is not changed by later edits to the committed objects', async () => {
      const store = current();
      const conv = conversation({ messages: [userMsg('x')], plan });
      await store.conversations.commit(conv, 0);
      const saved = structuredClone(conv);
      conv.plan = null;
      conv.turns = 9;
      assert.deepEqual(await loaded(store), [saved]);
    });
  });
}

export function describeMemory(current: () => Store): void {
  describe('memory', () => {
    it('sets, gets and overwrites a value', async () => {
      const { memory } = current();
      await memory.set({ key: 'k', value: { a: [1, 2] }, expires: null, updated: 10 });
      assert.deepEqual(await memory.get('k', 11), { key: 'k', value: { a: [1, 2] }, expires: null, updated: 10 });
      await memory.set({ key: 'k', value: 'v2', expires: null, updated: 12 });
      assert.equal((await memory.get('k', 13))?.value, 'v2');
      assert.equal(await memory.get('absent', 13), null);
    });

    it('reads an entry as absent once its expiry has passed', async () => {
      const { memory } = current();
      await memory.set({ key: 'ttl', value: 1, expires: 1000, updated: 0 });
      assert.equal((await memory.get('ttl', 1000))?.value, 1);
      assert.equal(await memory.get('ttl', 1001), null);
      assert.deepEqual(await memory.list('', 10, 1001), { keys: [], truncated: false });
    });

    it('lists keys under a prefix, sorted, limited, and says when it truncated', async () => {
      const { memory } = current();
      for (const key of ['user/c', 'user/a', 'other', 'user/b', 'user/d', 'usex', 'user']) {
        await memory.set({ key, value: key, expires: null, updated: 0 });
      }
      await memory.set({ key: 'user/old', value: 0, expires: 5, updated: 0 });
      assert.deepEqual(await memory.list('user/', 3, 10), { keys: ['user/a', 'user/b', 'user/c'], truncated: true });
      assert.deepEqual(await memory.list('user/', 4, 10), {
        keys: ['user/a', 'user/b', 'user/c', 'user/d'],
        truncated: false,
      });
      assert.deepEqual(await memory.list('', 2, 10), { keys: ['other', 'user'], truncated: true });
      assert.deepEqual(await memory.list('zzz', 5, 10), { keys: [], truncated: false });
    });

    it('deletes a key and says whether it existed', async () => {
      const { memory } = current();
      await memory.set({ key: 'gone', value: true, expires: null, updated: 0 });
      assert.equal(await memory.delete('gone'), true);
      assert.equal(await memory.delete('gone'), false);
      assert.equal(await memory.get('gone', 0), null);
    });

    it('announces every committed set and delete until unsubscribed', async () => {
      const { memory } = current();
      const heard: MemoryChange[] = [];
      const off = memory.onChange((change) => heard.push(change));
      await memory.set({ key: 'k', value: 1, expires: null, updated: 5 });
      await memory.delete('k');
      await memory.delete('k');
      off();
      await memory.set({ key: 'k', value: 2, expires: null, updated: 6 });
      assert.deepEqual(heard, [
        { key: 'k', entry: { key: 'k', value: 1, expires: null, updated: 5 } },
        { key: 'k', entry: null },
      ]);
    });
  });
}
