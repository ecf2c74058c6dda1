// A run's next look on the durable timer service (producers reference §3.8), over a real SQLite file: a store
// error while the row moves is logged (`timer.arm.fail`), not an unhandled rejection that ends the process; an idle
// run with nothing armed does not write the store; moves asked back to back land in order, one row left.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { TimerService } from '../../../src/triggers/timerService.js';
import { runTimerOwner, WakeTimers } from '../../../src/workflows/wakeTimers.js';
import { FakeClock } from '../../doubles/fakeClock.js';

/** Polls an async check until it holds, or throws after `ms`. */
async function waitUntil(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function rig() {
  const store = new SqliteStore(mkdtempSync(join(tmpdir(), 'agentd-wake-')));
  const clock = new FakeClock(0);
  const events: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
  const service = new TimerService({ timers: store.timers, log, clock });
  await service.start();
  const wakes = new WakeTimers(clock.now, () => {}, { service, log });
  const stored = async () =>
    (await store.timers.list()).filter((t) => t.owner === runTimerOwner('r')).map((t) => t.due);
  return { store, events, wakes, stored };
}

describe('WakeTimers on the durable timer service', () => {
  it('logs timer.arm.fail when deleting the moved row fails, with no unhandled rejection', async () => {
    const { store, events, wakes } = await rig();
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    try {
      wakes.arm('r', 1_000);
      await waitUntil(async () => (await store.timers.list()).length === 1, 5_000, 'the first row');
      // A lost database: the old row's delete fails. Without the await inside the arming, this rejection had no
      // handler (`void service.cancel`) and Node 20 ends the process on it.
      store.timers.settle = () => Promise.reject(new Error('connection lost'));
      wakes.arm('r', 2_000);
      await waitUntil(() => events.some((e) => e['event'] === 'timer.arm.fail'), 5_000, 'timer.arm.fail');
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(unhandled, []);
      const fail = events.find((e) => e['event'] === 'timer.arm.fail');
      assert.equal(fail?.['owner'], 'run:r');
      assert.match(String(fail?.['err']), /connection lost/);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await store.close();
    }
  });

  it('writes nothing for an idle run with no row, and ends with the last of back-to-back moves', async () => {
    const { store, wakes, stored } = await rig();
    try {
      let deletes = 0;
      const cancelOwner = store.timers.cancelOwner.bind(store.timers);
      store.timers.cancelOwner = (owner) => {
        deletes += 1;
        return cancelOwner(owner);
      };
      for (let i = 0; i < 5; i++) wakes.arm('r', null);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(deletes, 0, 'an idle pass with nothing armed deleted from the store');
      // Each move awaits the old row's delete; without the per-run chain the 3 s arming reads the list while the
      // 2 s one is still deleting the 1 s row, and both the 2 s and the 3 s rows stay stored.
      wakes.arm('r', 1_000);
      wakes.arm('r', 2_000);
      wakes.arm('r', 3_000);
      await waitUntil(async () => (await stored()).includes(3_000), 5_000, 'the 3 s row');
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await stored(), [3_000]);
      wakes.arm('r', null);
      await waitUntil(async () => (await stored()).length === 0, 5_000, 'the run ended: no row');
      assert.equal(deletes, 1);
    } finally {
      await store.close();
    }
  });
});
