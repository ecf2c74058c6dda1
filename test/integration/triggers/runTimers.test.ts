// A run's retry backoff and deadline on the durable timer service (producers reference §3.8, issue 17 item 1): the
// run's next look is a stored row at the wall-clock due time, a SIGKILLed life's row is found by the next one, the
// step resumes at its due time, and no row outlives its run (ended or cancelled).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../src/obs/log.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { TimerService } from '../../../src/triggers/timerService.js';
import { WorkflowDesk } from '../../../src/workflows/workflowDesk.js';
import { waitUntil, within } from '../wait.js';
import { defs, tempStoreDir } from '../workflows/deskRig.js';

const LIFE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'doubles', 'workflowLife.js');
const tmp = tempStoreDir();
after(() => tmp.remove());

type Logged = Record<string, unknown>;
const BACKOFF_MS = 2_500;
const DOC = {
  name: 'w',
  steps: {
    s: { kind: 'once' },
    call: { kind: 'fail', depends_on: 's', message: 'down', retry: { max: 1, backoff: `${BACKOFF_MS}ms` } },
    f: { kind: 'finish', depends_on: 'call' },
  },
};

function life(dir: string): { child: ChildProcess; events: Logged[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [LIFE, dir, JSON.stringify(DOC), 'timers'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const events: Logged[] = [];
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line) as Logged);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, events, exited };
}

const named = (events: Logged[], name: string) => events.filter((e) => e['event'] === name);

describe('run timers on the durable timer service', () => {
  it('a step in retry backoff resumes after a SIGKILL at its due time, and its row goes with the run', async () => {
    const first = life(tmp.dir);
    await waitUntil(() => named(first.events, 'timer.armed').length > 0, 15_000, 'the backoff timer is stored');
    const armed = named(first.events, 'timer.armed')[0] ?? {};
    await new Promise((r) => setTimeout(r, 200));
    first.child.kill('SIGKILL');
    await first.exited;
    assert.equal(named(first.events, 'step.retry').length, 1, 'premise: attempt 1 failed into a backoff');
    assert.equal(named(first.events, 'run.done').length, 0, 'premise: life 1 died inside the backoff');
    const stored = new SqliteStore(tmp.dir);
    const rows = await stored.timers.list();
    await stored.close();
    // Without the durable timers the backoff was an in-memory timeout: no row.
    assert.equal(rows.length, 1, 'the backoff is a stored row');
    const [row] = rows;
    assert.equal(row?.kind, 'run_wake');
    assert.match(row?.owner ?? '', /^run:w-/);
    assert.equal(row?.due, armed['due']);

    const second = life(tmp.dir);
    assert.equal(await within(second.exited, 20_000, 'life 2 ends the run'), 0);
    const attempts = named(second.events, 'step.start').filter((e) => e['step'] === 'call');
    assert.deepEqual(
      attempts.map((e) => e['attempt']),
      [2],
      'attempt 2 runs in life 2',
    );
    const at = Date.parse(String(attempts[0]?.['ts']));
    assert.ok(at >= (row?.due ?? 0) - 5, `attempt 2 at its due time (${at} ≥ ${row?.due})`);
    assert.ok(named(second.events, 'timer.fired').some((e) => e['kind'] === 'run_wake'));
    assert.deepEqual(
      named(second.events, 'run.done').map((e) => e['status']),
      ['failed'],
    );
    const after = new SqliteStore(tmp.dir);
    assert.deepEqual(await after.timers.list(), [], 'the ended run left no timer row');
    await after.close();
  });

  it('a cancelled run forgets its deadline timer at once', async () => {
    const dir = tempStoreDir();
    const store = new SqliteStore(dir.dir);
    const log = createLogger({ level: 'error', write: () => {} });
    const timers = new TimerService({ timers: store.timers, log });
    const [def] = defs({
      name: 'slow',
      limits: { deadline: '1h' },
      steps: {
        s: { kind: 'manual' },
        nap: { kind: 'sleep', depends_on: 's', duration: '30m' },
        f: { kind: 'finish', depends_on: 'nap' },
      },
    });
    const desk = new WorkflowDesk({
      store,
      log,
      clock: Date.now,
      ports: { memory: store.memory, fetch, lookup: async () => [] },
      configured: def ? [def] : [],
      onRunEnded: () => {},
      timers,
    });
    try {
      await timers.start();
      await desk.open();
      const got = await desk.start({ workflow: 'slow', startKey: 'k1', principal: null, conversation: null });
      assert.ok(got.ok);
      const owner = `run:${got.run.id}`;
      await waitUntil(() => timers.list(owner).length === 1, 5_000, 'the sleep is armed');
      const due = timers.list(owner)[0]?.due ?? 0;
      assert.ok(due > Date.now() + 29 * 60_000, 'due when the sleep ends (before the 1 h deadline)');
      assert.equal((await store.timers.list()).length, 1, 'premise: the row is stored');
      assert.ok(await desk.engine.cancel(got.run.id, 'test'));
      await waitUntil(() => timers.list(owner).length === 0, 5_000, 'the timer is forgotten');
      for (let i = 0; i < 100 && (await store.timers.list()).length > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(await store.timers.list(), []);
    } finally {
      await desk.stop();
      await timers.stop();
      await store.close();
      dir.remove();
    }
  });
});
