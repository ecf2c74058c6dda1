// A start queued behind a workflow's concurrency limit survives a restart (issue 17 item 6): it is a row in the
// timer store, tried again when the next life opens and run once the live run ends; without the durable queue
// (the premise) a restart loses it.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { systemClock, TimerService } from '../../../src/triggers/timerService.js';
import { timerStartQueue } from '../../../src/workflows/startQueue.js';
import { WorkflowDesk } from '../../../src/workflows/workflowDesk.js';
import { waitUntil } from '../wait.js';
import { defs } from './deskRig.js';

const ONE_AT_A_TIME = {
  name: 'solo',
  concurrency: { max_runs: 1, on_overflow: 'queue' },
  steps: {
    s: { kind: 'manual' },
    nap: { kind: 'sleep', depends_on: 's', duration: '{{inputs.nap}}' },
    f: { kind: 'finish', depends_on: 'nap', output: '{{inputs.nap}}' },
  },
};

/** `frozen`: the timer service's clock stands still, so every queued start is held in the same millisecond. */
async function life(dir: string, durable: boolean, frozen = false) {
  const store = new SqliteStore(dir);
  const ended: string[] = [];
  const log = createLogger({ level: 'error', write: () => {} });
  const timers = new TimerService({ timers: store.timers, log, ...(frozen ? { clock: FROZEN } : {}) });
  const desk = new WorkflowDesk({
    store,
    log,
    clock: Date.now,
    ports: { memory: store.memory, fetch, lookup: async () => ['127.0.0.1'] },
    configured: defs(ONE_AT_A_TIME),
    onRunEnded: (run) => ended.push(run.startKey),
    ...(durable ? { queue: timerStartQueue(timers) } : {}),
  });
  await timers.start();
  await desk.open();
  return {
    desk,
    store,
    ended,
    close: async () => {
      await desk.stop();
      await timers.stop();
      await store.close();
    },
  };
}

const FROZEN = { ...systemClock, now: () => 1_000 };

const ask = (key: string, nap: string) => ({
  workflow: 'solo',
  startKey: key,
  inputs: { nap },
  principal: null,
  conversation: null,
});

async function queueThenRestart(durable: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-queued-'));
  const first = await life(dir, durable);
  const running = await first.desk.start(ask('a', '1h'));
  assert.ok(running.ok && running.created);
  const queued = await first.desk.start(ask('b', '10ms'));
  assert.equal(queued.ok, false, 'over the limit: queued');
  await first.close();
  const second = await life(dir, durable);
  const live = second.desk.engine.live();
  assert.equal(live.length, 1, 'the sleeping run is restored live');
  await second.desk.engine.cancel(live[0]?.id ?? '', 'make room');
  const ran = async () => (await second.store.workflows.listRuns({})).filter((r) => r.startKey === 'b');
  return { second, ran };
}

describe('queued starts', () => {
  it('a start queued behind concurrency runs in the next life once the live run ends', async () => {
    const { second, ran } = await queueThenRestart(true);
    try {
      await waitUntil(() => second.ended.includes('b'), 10_000, 'the queued run ended');
      assert.deepEqual(
        (await ran()).map((r) => r.status),
        ['completed'],
      );
      assert.deepEqual(
        second.desk.engine.live().map((r) => r.startKey),
        [],
      );
      assert.equal((await second.store.timers.list()).length, 0, 'its queue row is gone once it ran');
    } finally {
      await second.close();
    }
  });

  it('premise: with the queue in memory only, the restart loses it', async () => {
    const { second, ran } = await queueThenRestart(false);
    try {
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(await ran(), []);
    } finally {
      await second.close();
    }
  });

  it('starts queued in one millisecond run in the order they were queued, across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-queued-'));
    const first = await life(dir, true, true);
    assert.ok((await first.desk.start(ask('a', '1h'))).ok);
    // Named against their order: rows come back sorted by id, so only the sequence keeps z, y, x.
    for (const key of ['z', 'y', 'x']) assert.equal((await first.desk.start(ask(key, '10ms'))).ok, false);
    const rows = await first.store.timers.list();
    assert.equal(new Set(rows.map((r) => (r.payload as { at: number }).at)).size, 1, 'premise: one millisecond');
    await first.close();
    // Two restarts: the second life queues them again (still behind `a`), and they keep their places.
    const second = await life(dir, true, true);
    await second.close();
    const third = await life(dir, true, true);
    try {
      await third.desk.engine.cancel(third.desk.engine.live()[0]?.id ?? '', 'make room');
      await waitUntil(() => third.ended.length === 4, 10_000, 'the queued runs ended');
      assert.deepEqual(third.ended, ['a', 'z', 'y', 'x']);
    } finally {
      await third.close();
    }
  });
});
