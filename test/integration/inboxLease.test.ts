// The inbox lease over the real SQLite store: events another instance name leased are run here once that lease
// expires (and a caller waiting for one hears its outcome), and this instance keeps renewing its own leases while
// it runs, so a second owner cannot take its pending events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inboxEvent } from '../unit/store/storeFixtures.js';
import { startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

const foreign = inboxEvent({
  principal: 'operator',
  payload: { context_id: 'left', text: 'left behind by the other name', msg_depth: 0 },
});

describe('inbox lease', () => {
  it('runs, once, the pending events another owner leased, once that lease expires', async () => {
    const leasedUntil = Date.now() + 1_500;
    const rig = await startRig(
      { turns: [{ content: 'done' }] },
      {},
      {
        inboxLeaseMs: 300,
        // Before the restore: the event is pending and leased to another instance name (a restart under a new name).
        wrapStore: (store) => {
          void store.inbox.accept(foreign).then(() => store.inbox.claim('other-name', 1_500, Date.now()));
          return store;
        },
      },
    );
    try {
      const outcome = rig.sup.outcomeOf(foreign.id);
      assert.equal(rig.model.requests.length, 0, 'a live foreign lease is left alone');
      const heard = await within(outcome, 10_000, 'the foreign event after its lease');
      assert.equal(heard.status, 'completed');
      assert.equal(heard.reply, 'done');
      assert.ok(Date.now() >= leasedUntil, 'not before the foreign lease expired');
      // A few more renewals pass: the event is not queued a second time.
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(rig.model.requests.length, 1);
      assert.equal((await rig.store.inbox.find(foreign.id))?.status, 'done');
    } finally {
      await rig.close();
    }
  });

  it('a drain answers a caller waiting for an event still leased elsewhere (it replays later)', async () => {
    const rig = await startRig(
      { turns: [{ content: 'done' }] },
      {},
      {
        wrapStore: (store) => {
          void store.inbox.accept(foreign).then(() => store.inbox.claim('other-name', 60_000, Date.now()));
          return store;
        },
      },
    );
    const outcome = rig.sup.outcomeOf(foreign.id);
    await rig.close();
    assert.equal((await within(outcome, 5_000, 'the waiter after the drain')).status, 'cancelled');
    assert.equal(rig.model.requests.length, 0);
  });

  it('renews its own leases while it runs: a second owner takes nothing of them', async () => {
    const rig = await startRig({ turns: [{ content: 'done' }] }, {}, { inboxLeaseMs: 300 });
    try {
      rig.sup.pause();
      const ev = (await rig.sup.accept({ context_id: 'mine', text: 'hold on', principal: 'operator' })).record;
      // Well past several lease lengths.
      await new Promise((r) => setTimeout(r, 1_000));
      assert.deepEqual(await rig.store.inbox.claim('intruder', 300, Date.now()), []);
      rig.sup.resume();
      const heard = await within(rig.sup.outcomeOf(ev.id), 10_000, 'the paused event');
      assert.equal(heard.status, 'completed');
      await waitUntil(() => rig.sup.idle, 5_000, 'idle');
    } finally {
      await rig.close();
    }
  });
});
