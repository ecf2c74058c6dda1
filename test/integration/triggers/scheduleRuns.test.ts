// A workflow's `schedule` start over a real SQLite file, restarted (store, timers and desk closed and opened again)
// on an injected clock: every occurrence starts exactly one real run across the restarts (producers reference
// §3.4, §5 items 14 and 16; issue 17's every-2s acceptance case, now with runs instead of a recording target).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { ScheduleRunner } from '../../../src/triggers/scheduleRunner.js';
import { TimerService } from '../../../src/triggers/timerService.js';
import { StartTriggers } from '../../../src/workflows/startTriggers.js';
import { WorkflowDesk } from '../../../src/workflows/workflowDesk.js';
import { FakeClock } from '../../doubles/fakeClock.js';
import { waitUntil } from '../wait.js';
import { defs } from '../workflows/deskRig.js';

const T0 = Date.parse('2026-06-01T00:00:00Z');

const TICK = {
  name: 'tick',
  steps: {
    s: { kind: 'schedule', every: '2s', catch_up: 'none' },
    f: { kind: 'finish', depends_on: ['s'], output: '{{steps.s.output.scheduled_for}}' },
  },
};

/** One life: the store on `dir`, the timer service, the schedule runner and the desk with its starts armed. */
async function life(dir: string, clock: FakeClock, events: string[], rearm = true) {
  const store = new SqliteStore(dir);
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line).event) });
  const timers = new TimerService({ timers: store.timers, log, clock });
  const schedules = new ScheduleRunner({ timers, store: store.timers, log });
  const desk = new WorkflowDesk({
    store,
    log,
    clock: clock.now,
    ports: { memory: store.memory, fetch, lookup: async () => ['127.0.0.1'] },
    configured: defs(TICK),
    onRunEnded: () => {},
  });
  await desk.open();
  const starts = new StartTriggers({ desk, schedules, log, clock: clock.now, secret: (t) => t });
  // Without re-arming (the premise), the stored timer is dropped as from a daemon that re-arms from "now".
  if (!rearm) await store.timers.cancelOwner('trigger:tick.s');
  const arming = starts.armAll();
  await timers.start();
  await arming;
  return {
    store,
    desk,
    stop: async () => {
      await waitUntil(() => desk.engine.live().length === 0, 5_000, 'live runs ended');
      await timers.stop();
      await desk.stop();
      await store.close();
    },
  };
}

async function restartEvery1500ms(rearm: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-schedrun-'));
  const clock = new FakeClock(T0);
  const events: string[] = [];
  while (clock.now() < T0 + 10_000) {
    const up = await life(dir, clock, events, rearm);
    await clock.advance(1_500);
    await up.stop();
    await clock.advance(600);
  }
  const last = await life(dir, clock, events, rearm);
  await clock.advance(100);
  const runs = await last.store.workflows.listRuns({});
  await last.stop();
  return { runs, events };
}

describe('schedule start nodes across restarts', () => {
  it('every 2s with the daemon restarted every 1.5 s for 10 s starts one completed run per occurrence', async () => {
    const { runs, events } = await restartEvery1500ms(true);
    assert.deepEqual(
      runs.map((r) => (r.start.payload as { scheduled_for: number }).scheduled_for - T0),
      [2_000, 4_000, 6_000, 8_000, 10_000],
    );
    assert.ok(
      runs.every(
        (r) => r.status === 'completed' && r.output === (r.start.payload as { scheduled_for: number }).scheduled_for,
      ),
    );
    assert.deepEqual(
      runs.map((r) => r.startKey),
      [2, 4, 6, 8, 10].map((s) => `schedule/tick.s/${T0 + s * 1_000}`),
      'each run keyed by its occurrence',
    );
    assert.equal(events.filter((e) => e === 'run.start').length, 5);
  });

  it('premise: a stored occurrence dropped at each start (re-armed from "now") starts no run in 10 s', async () => {
    const { runs } = await restartEvery1500ms(false);
    assert.deepEqual(runs, []);
  });
});
