// Schedules over a real SQLite file, restarted (the store closed and opened again) on an injected clock: no
// firing lost to re-arming from "now", catch_up after an outage, a one-shot `at` fired once across lives.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import type { FireTarget } from '../../../src/triggers/fireTarget.js';
import type { ScheduleFields } from '../../../src/triggers/schedule.js';
import { ScheduleRunner } from '../../../src/triggers/scheduleRunner.js';
import { TimerService } from '../../../src/triggers/timerService.js';
import { NO_TRIGGER_METRICS } from '../../../src/triggers/triggerMetrics.js';
import { FakeClock } from '../../doubles/fakeClock.js';

const T0 = Date.parse('2026-06-01T00:00:00Z');

/** A target that dedupes by key, as the inbox does; it records every call and the occurrences started. */
function recordingTarget() {
  const keys = new Set<string>();
  const calls: string[] = [];
  const started: number[] = [];
  const target: FireTarget = {
    async fire(_trigger, occurrence, key) {
      calls.push(key);
      if (!keys.has(key)) started.push(occurrence - T0);
      keys.add(key);
      return undefined;
    },
  };
  return { target, calls, started };
}

/** One life of the daemon: the store opened on `dir`, the timer service and the runner with `schedule` added. */
async function life(
  dir: string,
  clock: FakeClock,
  schedule: ScheduleFields,
  target: FireTarget,
  events: string[],
  caughtUp: number[] = [],
) {
  const store = new SqliteStore(dir);
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line).event) });
  const timers = new TimerService({ timers: store.timers, log, clock });
  const metrics = { ...NO_TRIGGER_METRICS, caughtUp: (n: number) => caughtUp.push(n) };
  const runner = new ScheduleRunner({ timers, store: store.timers, log, metrics });
  const adding = runner.add({ id: 'w.tick', schedule, principal: null }, target);
  await timers.start();
  await adding;
  return {
    store,
    stop: async () => {
      await timers.stop();
      await store.close();
    },
  };
}

describe('ScheduleRunner across restarts', () => {
  it('every 2s restarted every 1.5 s for 10 s fires each occurrence once (catch_up none)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-sched-'));
    const clock = new FakeClock(T0);
    const { target, calls, started } = recordingTarget();
    const events: string[] = [];
    // Lives of 1.5 s with 0.6 s down between: every occurrence (2, 4, 6, 8, 10 s) comes due while down and
    // fires at the next start, a few hundred ms late.
    while (clock.now() < T0 + 10_000) {
      const up = await life(dir, clock, { every: '2s', catch_up: 'none' }, target, events);
      await clock.advance(1_500);
      await up.stop();
      await clock.advance(600);
    }
    const last = await life(dir, clock, { every: '2s', catch_up: 'none' }, target, events);
    await clock.advance(100);
    await last.stop();
    assert.deepEqual(started, [2_000, 4_000, 6_000, 8_000, 10_000]);
    assert.equal(calls.length, 5, 'no occurrence fired twice');
    assert.equal(events.filter((e) => e === 'start.fired').length, 5);
  });

  it('premise: re-arming from "now" at each start (the stored timer lost) fires nothing in the same 10 s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-sched-'));
    const clock = new FakeClock(T0);
    const { target, started } = recordingTarget();
    while (clock.now() < T0 + 10_000) {
      const up = await life(dir, clock, { every: '2s', catch_up: 'none' }, target, []);
      await clock.advance(1_500);
      await up.store.timers.cancelOwner('trigger:w.tick');
      await up.stop();
      await clock.advance(600);
    }
    assert.deepEqual(started, []);
  });

  for (const [catch_up, expected] of [
    ['none', [2_000, 8_000]],
    ['one', [2_000, 6_000, 8_000]],
    ['all', [2_000, 4_000, 6_000, 8_000]],
  ] as const) {
    it(`catch_up ${catch_up} after a 5 s outage fires ${expected.length - 2} missed occurrence(s)`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agentd-sched-'));
      const clock = new FakeClock(T0);
      const { target, started } = recordingTarget();
      const events: string[] = [];
      const caughtUp: number[] = [];
      const first = await life(dir, clock, { every: '2s', catch_up }, target, events, caughtUp);
      await clock.advance(2_500);
      await first.stop();
      await clock.advance(5_000); // down from 2.5 s to 7.5 s: 4 s and 6 s are missed
      const second = await life(dir, clock, { every: '2s', catch_up }, target, events, caughtUp);
      await clock.advance(1_000);
      await second.stop();
      assert.deepEqual(started, expected);
      assert.equal(events.includes('start.schedule.missed'), true);
      // The catch-up metric counts the missed occurrences fired late (agentd_schedule_catch_ups_total).
      assert.deepEqual(caughtUp, [expected.length - 2]);
    });
  }

  it('a one-shot at fires once; the next life logs start.schedule.done and fires nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-sched-'));
    const clock = new FakeClock(T0);
    const { target, calls } = recordingTarget();
    const events: string[] = [];
    const at = { at: new Date(T0 + 1_000).toISOString() };
    const first = await life(dir, clock, at, target, events);
    await clock.advance(2_000);
    await first.stop();
    assert.deepEqual(calls, [`schedule/w.tick/${T0 + 1_000}`]);
    const second = await life(dir, clock, at, target, events);
    await clock.advance(2_000);
    assert.deepEqual(await second.store.timers.list(), []);
    await second.stop();
    assert.equal(calls.length, 1);
    assert.equal(events.filter((e) => e === 'start.schedule.done').length, 2, 'once when consumed, once at restart');
  });

  it('an edited schedule is armed afresh; an unchanged one keeps its stored occurrence', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-sched-'));
    const clock = new FakeClock(T0);
    const { target } = recordingTarget();
    const first = await life(dir, clock, { every: '1h' }, target, []);
    await first.stop();
    await clock.advance(30 * 60_000);
    const same = await life(dir, clock, { every: '1h' }, target, []);
    assert.deepEqual(
      (await same.store.timers.list()).map((t) => t.due - T0),
      [3_600_000],
      'kept, not now + 1h',
    );
    await same.stop();
    const edited = await life(dir, clock, { every: '2h' }, target, []);
    assert.deepEqual(
      (await edited.store.timers.list()).map((t) => t.due - T0),
      [30 * 60_000 + 7_200_000],
    );
    await edited.stop();
  });
});
