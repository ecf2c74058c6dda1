// Outcomes: who hears an inbox event's outcome, and when. An event the queue does not know is answered from the
// store; one still pending waits for its fold, and a waiter is never left behind for an answered event.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { ABANDONED, Outcomes } from '../../../src/supervisor/foldBack.js';
import { inboxEvent } from '../store/storeFixtures.js';

describe('Outcomes.of', () => {
  it('answers a done event from the store, and an unknown one as failed', async () => {
    const store = new MemoryStore();
    const event = inboxEvent();
    await store.inbox.accept(event);
    const outcome = { status: 'completed' as const, reply: 'hi' };
    await store.inbox.complete(event.id, { outcome, conversations: [] });
    const outcomes = new Outcomes();
    const at = { known: false, inbox: store.inbox, draining: false };
    assert.deepEqual(await outcomes.of(event.id, at), outcome);
    assert.equal((await outcomes.of('01NOPE0000000000000000000A', at)).status, 'failed');
    let late = false;
    void outcomes.of(event.id, at).then(() => {
      late = true;
    });
    outcomes.resolve(event.id, { status: 'failed', reply: '' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(late, true);
  });

  it('lets a pending event wait for its fold, even one that commits while the store is read', async () => {
    const store = new MemoryStore();
    const event = inboxEvent();
    await store.inbox.accept(event);
    const outcomes = new Outcomes();
    const heard = outcomes.of(event.id, { known: false, inbox: store.inbox, draining: false });
    outcomes.resolve(event.id, { status: 'completed', reply: 'folded' });
    assert.equal((await heard).reply, 'folded');
    assert.deepEqual(await outcomes.of(event.id, { known: false, inbox: store.inbox, draining: true }), ABANDONED);
  });
});
