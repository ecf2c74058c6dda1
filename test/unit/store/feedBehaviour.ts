// The client feed and task retention in the Store behaviour suite (storeBehaviour.ts), alike in every backend
// (schema 6, issue 18).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedEntry } from '../../../src/domain/feed.js';
import type { Store } from '../../../src/store/store.js';
import { conversation, inboxEvent, taskRecord, userMsg } from './storeFixtures.js';

function entry(ts: number, text = `e${ts}`): FeedEntry {
  return { ts, kind: 'message', audience: 'user:alice', data: { text } };
}

export function describeFeed(current: () => Store): void {
  describe('feed', () => {
    it('numbers appended events from 1 in order and reads them after a cursor', async () => {
      const store = current();
      assert.deepEqual(await store.feed.bounds(), { oldest: null, newest: 0 });
      const added = await store.feed.append([entry(10), entry(11), entry(12)]);
      assert.deepEqual(
        added.map((e) => e.seq),
        [1, 2, 3],
      );
      const read = await store.feed.after(1, 10);
      assert.deepEqual(
        read.map((e) => [e.seq, e.data.text, e.audience]),
        [
          [2, 'e11', 'user:alice'],
          [3, 'e12', 'user:alice'],
        ],
      );
      assert.equal((await store.feed.after(0, 2)).length, 2);
      assert.deepEqual(await store.feed.bounds(), { oldest: 1, newest: 3 });
    });

    it("appends a fold's entries in the fold's transaction: all with it, none when it is refused", async () => {
      // A crash between a fold and a separate append lost the task's end and the reply from the feed (issue 18).
      const store = current();
      await store.feed.append([entry(10)]);
      const event = inboxEvent();
      await store.inbox.accept(event);
      const conv = conversation({ messages: [userMsg('q')] });
      await store.conversations.commit(conv, 0);
      const fold = {
        outcome: { status: 'completed' as const, reply: 'a' },
        conversations: [{ conversation: { ...conv, messages: [userMsg('q'), userMsg('a')] }, expectedRevision: 0 }],
        feed: [entry(20, 'the end'), entry(21, 'the reply')],
      };
      await assert.rejects(store.inbox.complete(event.id, fold), /expected revision 0/);
      assert.deepEqual(await store.feed.bounds(), { oldest: 1, newest: 1 }, 'a refused fold appends nothing');
      const stored = { ...fold, conversations: [{ ...fold.conversations[0]!, expectedRevision: 1 }] };
      await store.inbox.complete(event.id, stored);
      assert.deepEqual(
        (await store.feed.after(1, 10)).map((e) => [e.seq, e.data.text]),
        [
          [2, 'the end'],
          [3, 'the reply'],
        ],
      );
    });

    it('prunes by count and by age, and never reuses a seq', async () => {
      const store = current();
      await store.feed.append([entry(10), entry(20), entry(30), entry(40)]);
      assert.equal(await store.feed.prune(3, 15), 1, 'the one older than 15');
      assert.equal(await store.feed.prune(2, 0), 1, 'one past the newest two');
      assert.deepEqual(await store.feed.bounds(), { oldest: 3, newest: 4 });
      await store.feed.prune(0, 0);
      assert.deepEqual(await store.feed.bounds(), { oldest: null, newest: 4 });
      const [next] = await store.feed.append([entry(50)]);
      assert.equal(next?.seq, 5);
    });
  });

  describe('task retention', () => {
    it('deletes terminal tasks past the count or the age, never a running one', async () => {
      const store = current();
      const old = taskRecord({ state: 'completed', updated: 50 });
      const a = taskRecord({ state: 'failed', updated: 300 });
      const b = taskRecord({ state: 'canceled', updated: 200 });
      const c = taskRecord({ state: 'completed', updated: 150 });
      const running = taskRecord({ state: 'working', updated: 10 });
      for (const t of [old, a, b, c, running]) await store.tasks.save(t);
      assert.equal(await store.tasks.prune(10, 100), 1);
      assert.equal(await store.tasks.get(old.id), null);
      assert.equal(await store.tasks.prune(2, 0), 1, 'c is the third newest terminal task');
      assert.equal(await store.tasks.get(c.id), null);
      assert.ok(await store.tasks.get(a.id));
      assert.ok(await store.tasks.get(b.id));
      assert.equal(await store.tasks.prune(0, 1_000), 2);
      assert.equal((await store.tasks.get(running.id))?.state, 'working');
    });
  });
}
