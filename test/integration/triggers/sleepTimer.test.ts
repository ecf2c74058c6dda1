// The turn's `sleep` tool on the durable timer service (producers reference §3.8, §5 item 19): the timer is a row
// while the turn sleeps, a cancel is noticed at once, and no timer of a turn outlives it, however it ends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { type Rig, startRig } from '../harness.js';
import { within } from '../wait.js';

const OP = 'operator';
const SLEEPER = { turns: [{ tool_calls: [{ name: 'sleep', arguments: { duration: '10m' } }] }, { content: 'up' }] };

/** Starts a 10 minute sleep in conversation `ctx` and waits until its timer is stored. */
async function sleeping(rig: Rig, ctx: string) {
  const ev = (await rig.sup.accept({ context_id: ctx, text: 'sleep a long time', principal: OP })).record;
  let stored: Awaited<ReturnType<Rig['store']['timers']['list']>> = [];
  const deadline = Date.now() + 10_000;
  while (stored.length === 0) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the sleep timer row');
    await new Promise((r) => setTimeout(r, 25));
    stored = await rig.store.timers.list();
  }
  return { ev, stored };
}

async function timerRowsGone(rig: Rig): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await rig.store.timers.list()).length > 0) {
    if (Date.now() > deadline) throw new Error('the turn ended but its timer row is still stored');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('sleep on the durable timer service', () => {
  it('stores the timer owned by the turn, shows it in status, and a cancel ends the turn and deletes it', async () => {
    const rig = await startRig(SLEEPER);
    try {
      const { ev, stored } = await sleeping(rig, 's1');
      const [row] = stored;
      assert.equal(row?.kind, 'tool');
      assert.match(row?.owner ?? '', /^turn:/);
      assert.ok((row?.due ?? 0) > Date.now() + 9 * 60_000, 'due in ~10 minutes, wall clock');
      const status = rig.sup.status() as { timers?: { armed: number; next_due: number } };
      assert.equal(status.timers?.armed, 1);
      assert.equal(status.timers?.next_due, row?.due);
      const asked = Date.now();
      assert.ok(rig.sup.cancel('s1'));
      const outcome = await within(rig.sup.outcomeOf(ev.id), 5_000, 'cancel noticed');
      assert.equal(outcome.status, 'cancelled');
      assert.ok(Date.now() - asked < 4_000, 'noticed at once, not at the timer');
      await timerRowsGone(rig);
      assert.deepEqual(rig.sup.timers.list(), []);
    } finally {
      await rig.close();
    }
  });

  it('a worker killed mid-sleep fails the turn and leaves no timer row', async () => {
    const rig = await startRig(SLEEPER);
    try {
      const { ev } = await sleeping(rig, 's2');
      const pid = rig.named('turn.spawn').at(-1)?.worker_pid as number;
      assert.ok(pid > 0, 'premise: the worker process is known');
      // Without the turn's cleanup (tools/serving.ts park) the row would stay until due, ten minutes on.
      process.kill(pid, 'SIGKILL');
      const outcome = await within(rig.sup.outcomeOf(ev.id), 10_000, 'the killed turn');
      assert.equal(outcome.status, 'failed');
      await timerRowsGone(rig);
    } finally {
      await rig.close();
    }
  });

  it("a previous life's sleep timer is dropped at start: no stray result for a recycled node", async () => {
    const first = await startRig(SLEEPER);
    const dir = first.dir;
    await first.close();
    // What a SIGKILLed daemon leaves: a turn's sleep row (the turn died with its worker).
    const store = new SqliteStore(dir);
    await store.timers.arm({
      id: 'old',
      owner: 'turn:7',
      kind: 'tool',
      due: Date.now() + 60_000,
      payload: { node: 1 },
    });
    assert.equal((await store.timers.list()).length, 1, 'premise: the row is stored');
    await store.close();
    const rig = await startRig({ turns: [{ content: 'hi' }] }, {}, { dir });
    try {
      assert.deepEqual(await rig.store.timers.list(), []);
      assert.equal(rig.named('timer.dropped')[0]?.owner, 'turn:7');
    } finally {
      await rig.close();
    }
  });
});
