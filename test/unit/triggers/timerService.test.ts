// The timer service on a fake clock over the memory store: re-armed from the store at its stored due time, fired
// once (the row settled after its handler), unknown kinds logged and dropped, an owner's timers cancelled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TimerRecord } from '../../../src/domain/timer.js';
import { createLogger } from '../../../src/obs/log.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { planTimers } from '../../../src/triggers/timerPlan.js';
import { TimerService } from '../../../src/triggers/timerService.js';
import { FakeClock } from '../../doubles/fakeClock.js';

function service(store: MemoryStore, clock: FakeClock, events: Array<Record<string, unknown>> = []) {
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
  return new TimerService({ timers: store.timers, log, clock });
}

describe('planTimers', () => {
  it('splits due timers (earliest first) from the wait for the next, leaving out those firing', () => {
    const t = (id: string, due: number): TimerRecord => ({ id, owner: 'o', kind: 'k', due, payload: null });
    const plan = planTimers([t('b', 5), t('a', 5), t('c', 20), t('d', 1)], 10, new Set(['d']));
    assert.deepEqual(
      plan.due.map((x) => x.id),
      ['a', 'b'],
    );
    assert.equal(plan.wakeInMs, 10);
    assert.equal(planTimers([], 0, new Set()).wakeInMs, null);
  });
});

describe('TimerService', () => {
  it('re-arms a stored timer at its stored due time, not from the restart', async () => {
    const store = new MemoryStore();
    const clock = new FakeClock(1_000);
    const first = service(store, clock);
    await first.start();
    await first.arm({ owner: 'trigger:x', kind: 'ping', due: 6_000, payload: { n: 1 } });
    await clock.advance(1_000);
    await first.stop();
    const fired: Array<[number, unknown]> = [];
    const second = service(store, clock);
    second.handle('ping', (t) => {
      fired.push([clock.now(), t.payload]);
      return undefined;
    });
    await clock.advance(500); // restarted at 2.5 s: a re-arm from now would be due at 7.5 s
    await second.start();
    await clock.advance(3_000);
    assert.deepEqual(fired, []);
    await clock.advanceTo(6_000);
    assert.deepEqual(fired, [[6_000, { n: 1 }]]);
    assert.deepEqual(await store.timers.list(), [], 'settled once fired');
    await clock.advance(10_000);
    assert.equal(fired.length, 1, 'fired once');
  });

  it('arms the timer a handler returns in the same settle, and a waiter fires instead of the handler', async () => {
    const store = new MemoryStore();
    const clock = new FakeClock(0);
    const timers = service(store, clock);
    const seen: string[] = [];
    timers.handle('tick', (t) => {
      seen.push(t.id);
      return t.id === 'one' ? { ...t, id: 'two', due: t.due + 100 } : undefined;
    });
    await timers.start();
    await timers.arm({ id: 'one', owner: 'o', kind: 'tick', due: 100, payload: null });
    await timers.arm({ owner: 'o', kind: 'tick', due: 50, payload: null }, (t) => seen.push(`waiter:${t.due}`));
    await clock.advance(500);
    assert.deepEqual(seen, ['waiter:50', 'one', 'two']);
    assert.deepEqual(await store.timers.list(), []);
  });

  it('logs timer.unknown_owner for a kind nobody handles and deletes it', async () => {
    const store = new MemoryStore();
    await store.timers.arm({ id: 'x', owner: 'ghost', kind: 'nothing', due: 10, payload: null });
    const events: Array<Record<string, unknown>> = [];
    const clock = new FakeClock(100);
    await service(store, clock, events).start();
    await clock.advance(1);
    assert.equal(events.find((e) => e.event === 'timer.unknown_owner')?.owner, 'ghost');
    assert.deepEqual(await store.timers.list(), []);
  });

  it("cancelling an owner deletes its rows and its armed timers never fire; another owner's still do", async () => {
    const store = new MemoryStore();
    const clock = new FakeClock(0);
    const timers = service(store, clock);
    await timers.start();
    const woke: string[] = [];
    await timers.arm({ owner: 'turn:1', kind: 'tool', due: 100, payload: null }, () => woke.push('turn:1'));
    await timers.arm({ owner: 'turn:2', kind: 'tool', due: 100, payload: null }, () => woke.push('turn:2'));
    assert.equal(await timers.cancelOwner('turn:1'), 1);
    await clock.advance(200);
    assert.deepEqual(woke, ['turn:2']);
    assert.deepEqual(await store.timers.list(), []);
  });

  it('drops the stored timers of an ephemeral kind at start (what armed them is gone)', async () => {
    const store = new MemoryStore();
    await store.timers.arm({ id: 'sleep', owner: 'turn:9', kind: 'tool', due: 10_000, payload: null });
    await store.timers.arm({ id: 'keep', owner: 'trigger:t', kind: 'schedule', due: 10_000, payload: null });
    const timers = service(store, new FakeClock(0));
    timers.handle('tool', null, { ephemeral: true });
    await timers.start();
    assert.deepEqual(
      (await store.timers.list()).map((t) => t.id),
      ['keep'],
    );
  });
});
