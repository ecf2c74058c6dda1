// Conversation leases and the write fence between two replicas over one real PostgreSQL (issue 19 items 2-4):
// one holder per conversation, adoption with a higher epoch replaying the original events in order, every write
// of the old holder refused once the epoch moved on, a hold that could not be renewed stops writing by itself,
// and the same messageId accepted on two replicas at once makes one inbox row.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { EventName } from '../../../src/obs/events.js';
import { registerLeaseGauges } from '../../../src/obs/leaseGauges.js';
import { Metrics } from '../../../src/obs/metrics.js';
import { PostgresStore } from '../../../src/store/postgresStore.js';
import { createTestDatabase, resetTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { conversation, inboxEvent, taskRecord, userMsg } from '../../unit/store/storeFixtures.js';

const TTL = 10_000;
const T = 1_700_000_000_000;
let url = '';
const opened: PostgresStore[] = [];

before(async () => {
  url = await createTestDatabase('leases');
});
beforeEach(async () => {
  while (opened.length > 0) await opened.pop()?.close();
  await resetTestDatabase(url);
});
after(async () => {
  while (opened.length > 0) await opened.pop()?.close();
  await stopLazyServer();
});

/** A replica's store with a recording log and a clock the test sets. */
async function replica(name: string, clock: { now: number }) {
  const events: Array<{ event: EventName; fields: Record<string, unknown> }> = [];
  const record = (event: EventName, fields: Record<string, unknown> = {}) => events.push({ event, fields });
  const store = await PostgresStore.open({
    url,
    poolSize: 4,
    replica: name,
    now: () => clock.now,
    log: { info: record, warn: record },
  });
  opened.push(store);
  return { store, events, named: (e: EventName) => events.filter((x) => x.event === e) };
}

const done = { status: 'completed' as const, reply: 'ok' };

describe('conversation leases between replicas', () => {
  it('gives a conversation one holder; the other replica claims none of its events while the lease lives', async () => {
    const clock = { now: T };
    const r1 = await replica('r1', clock);
    const r2 = await replica('r2', clock);
    const e1 = inboxEvent({ ts: T });
    await r2.store.inbox.accept(e1);
    assert.deepEqual(await r1.store.inbox.claim('agent', TTL, T), [e1]);
    assert.deepEqual(await r2.store.inbox.claim('agent', TTL, T + 1), []);
    assert.deepEqual(r1.named('lease.acquired')[0]?.fields, { ctx: 'ctx-1', epoch: 1, replica: 'agent@r1' });
    assert.equal(r1.store.leases.held().get('ctx-1')?.epoch, 1);
    assert.equal(r2.store.leases.held().size, 0);
  });

  it('adopts an expired lease at a higher epoch, replays the events in order with their ids, fences the old holder', async () => {
    const clock = { now: T };
    const r1 = await replica('r1', clock);
    const r2 = await replica('r2', clock);
    const first = inboxEvent({ ts: T, payload: { context_id: 'c', text: 'one' } });
    const second = inboxEvent({ ts: T + 5, payload: { context_id: 'c', text: 'two' } });
    await r1.store.inbox.accept(second);
    await r1.store.inbox.accept(first);
    assert.equal((await r1.store.inbox.claim('agent', TTL, T)).length, 2);
    // r1 stops (SIGSTOP): r2's sweep after the TTL takes the conversation.
    clock.now = T + TTL + 1;
    assert.deepEqual(await r2.store.inbox.claim('agent', TTL, clock.now), [first, second]);
    assert.deepEqual(r2.named('lease.adopted')[0]?.fields, { ctx: 'c', epoch: 2, replica: 'agent@r2' });
    assert.equal(r2.store.leases.counts.adoptions, 1);
    const metrics = new Metrics();
    registerLeaseGauges(metrics, r2.store.leases);
    const text = await metrics.render();
    assert.match(text, /^agentd_leases_held 1$/m);
    assert.match(text, /^agentd_lease_adoptions 1$/m);
    // r1 wakes and folds: refused by the fence, nothing written.
    const conv = conversation({ id: 'c', messages: [userMsg('one')] });
    const fold = { outcome: done, conversations: [{ conversation: conv, expectedRevision: 0 }] };
    await assert.rejects(r1.store.inbox.complete(first.id, fold), { code: 'store_fenced' });
    await assert.rejects(r1.store.conversations.commit(conv, 0), { code: 'store_fenced' });
    await assert.rejects(r1.store.tasks.save(taskRecord({ conversation: 'c' })), { code: 'store_fenced' });
    assert.equal(r1.named('store.fenced').length, 3);
    assert.equal(r1.named('lease.lost').length, 1);
    const r1Metrics = new Metrics();
    registerLeaseGauges(r1Metrics, r1.store.leases);
    assert.match(await r1Metrics.render(), /^agentd_fenced_writes_refused 3$/m);
    assert.equal(r1.store.leases.held().size, 0);
    assert.equal((await r2.store.inbox.find(first.id))?.status, 'pending');
    assert.equal(await r2.store.conversations.get('c'), null);
    // The new holder's fold commits; the old holder's next cycle claims nothing of it.
    assert.deepEqual(await r2.store.inbox.complete(first.id, fold), [1]);
    assert.equal((await r2.store.inbox.find(first.id))?.status, 'done');
    assert.deepEqual(await r1.store.inbox.claim('agent', TTL, clock.now + 1), []);
  });

  it('keeps its holds alive by the heartbeat, without a claim (a busy replica is not adopted)', async () => {
    const clock = { now: T };
    const r1 = await replica('r1', clock);
    const r2 = await replica('r2', clock);
    const e = inboxEvent({ ts: T, payload: { context_id: 'h', text: 'x' } });
    await r1.store.inbox.accept(e);
    await r1.store.inbox.claim('agent', TTL, T);
    clock.now = T + TTL * 0.7;
    await r1.store.leases.heartbeat();
    clock.now = T + TTL + 1;
    assert.equal(r1.store.leases.holds('h'), true, 'the hold runs on from the heartbeat');
    assert.deepEqual(await r2.store.inbox.claim('agent', TTL, clock.now), [], 'nothing to adopt');
    const conv = conversation({ id: 'h', messages: [userMsg('x')] });
    assert.equal(await r1.store.conversations.commit(conv, 0), 1);
    // A hold already given up is not revived by a heartbeat.
    clock.now = T + TTL * 2;
    r1.store.leases.expire();
    await r1.store.leases.heartbeat();
    assert.equal(r1.store.leases.holds('h'), false);
  });

  it('keeps refusing a lost holder once the next holder released the lease (free is not ours)', async () => {
    const clock = { now: T };
    const r1 = await replica('r1', clock);
    const r2 = await replica('r2', clock);
    const e = inboxEvent({ ts: T, payload: { context_id: 'f', text: 'x' } });
    await r1.store.inbox.accept(e);
    await r1.store.inbox.claim('agent', TTL, T);
    // r1 stalls past the TTL: r2 adopts, runs the event and, nothing left pending, gives the lease back.
    clock.now = T + TTL + 1;
    assert.equal((await r2.store.inbox.claim('agent', TTL, clock.now)).length, 1);
    await r2.store.inbox.complete(e.id, { outcome: done, conversations: [] });
    assert.equal(r2.store.leases.held().size, 0, 'premise: the lease is free');
    // r1 wakes: its renewal finds the conversation gone, and every late write of it stays refused.
    await r1.store.inbox.claim('agent', TTL, clock.now + 1);
    assert.equal(r1.named('lease.lost').length, 1);
    const conv = conversation({ id: 'f', messages: [userMsg('x')] });
    await assert.rejects(r1.store.conversations.commit(conv, 0), { code: 'store_fenced' });
    await assert.rejects(r1.store.tasks.save(taskRecord({ conversation: 'f' })), { code: 'store_fenced' });
    assert.equal(await r2.store.conversations.get('f'), null, 'nothing of r1 was written');
    // Taken again (a new message it accepts), r1 writes at the new epoch.
    const next = inboxEvent({ ts: clock.now + 2, payload: { context_id: 'f', text: 'y' } });
    await r1.store.inbox.accept(next);
    assert.equal(r1.store.leases.held().get('f')?.epoch, 3);
    assert.equal(await r1.store.conversations.commit(conv, 0), 1);
  });

  it('stops writing by itself once its hold could not be renewed (before the TTL lets another adopt)', async () => {
    const clock = { now: T };
    const r1 = await replica('r1', clock);
    const e = inboxEvent({ ts: T, payload: { context_id: 'solo', text: 'x' } });
    await r1.store.inbox.accept(e);
    await r1.store.inbox.claim('agent', TTL, T);
    const conv = conversation({ id: 'solo' });
    assert.equal(await r1.store.conversations.commit(conv, 0), 1);
    // Premise: within its hold the same write goes through; past 4/5 of the TTL without a renewal it does not.
    const lost: string[] = [];
    r1.store.leases.onLost((ctx) => lost.push(ctx));
    r1.store.leases.expire();
    assert.deepEqual(lost, [], 'within its hold nothing is given up');
    assert.equal(r1.store.leases.holds('solo'), true);
    clock.now = T + TTL * 0.8 + 1;
    assert.equal(r1.store.leases.holds('solo'), false, 'the hold ended a fifth of the TTL early');
    r1.store.leases.expire();
    assert.deepEqual(lost, ['solo'], 'the supervisor hears it lost (its worker is killed)');
    await assert.rejects(r1.store.conversations.commit(conv, 1), { code: 'store_fenced' });
  });

  it('releases a lease once its conversation has no pending work, and the next holder takes it at epoch + 1', async () => {
    const clock = { now: T };
    const r1 = await replica('r1', clock);
    const r2 = await replica('r2', clock);
    const a = inboxEvent({ ts: T, payload: { context_id: 'k', text: 'a' } });
    await r1.store.inbox.accept(a);
    await r1.store.inbox.claim('agent', TTL, T);
    await r1.store.inbox.complete(a.id, { outcome: done, conversations: [] });
    await r1.store.inbox.claim('agent', TTL, T + 1);
    assert.equal(r1.store.leases.held().size, 0);
    const b = inboxEvent({ ts: T + 2, payload: { context_id: 'k', text: 'b' } });
    await r2.store.inbox.accept(b);
    assert.deepEqual(await r2.store.inbox.claim('agent', TTL, T + 3), [b]);
    assert.equal(r2.store.leases.held().get('k')?.epoch, 2);
  });

  it('accepts the same messageId on two replicas at once as one inbox row and one task', async () => {
    const clock = { now: T };
    const r1 = await replica('r1', clock);
    const r2 = await replica('r2', clock);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const event = inboxEvent({ dedupe_key: 'm-1' });
        const task = taskRecord({ inbox_event: event.id, conversation: 'ctx-1' });
        return (i % 2 === 0 ? r1 : r2).store.inbox.accept(event, task);
      }),
    );
    assert.equal(results.filter((r) => r.created).length, 1);
    assert.equal(new Set(results.map((r) => r.record.id)).size, 1);
    assert.equal(await r1.store.tasks.count({ principal: null }), 1);
  });
});
