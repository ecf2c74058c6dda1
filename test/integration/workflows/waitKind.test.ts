// The `wait` kind over a real SQLite store (producers reference §2.8 `wait`, §2.11): signals held before the wait
// or sent after it, another run's end, a due time, timeouts, and a wait that a second life of the desk resumes.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type DeskLife, named, openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

/** `m (manual) → w (the wait under test) → f (finish with w's output)`. */
function waiter(name: string, wait: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    name,
    steps: {
      m: { kind: 'manual' },
      w: { kind: 'wait', depends_on: 'm', ...wait },
      f: { kind: 'finish', depends_on: 'w', output: '{{steps.w.output}}', ...extra },
    },
  };
}

const SIGNAL = waiter('sig', { on: 'signal', signal: 'go', timeout: '30s' });
// Keeps a run live until it is signalled or cancelled, then ends with the signal's payload.
const TARGET = {
  name: 'target',
  steps: {
    m: { kind: 'manual' },
    w: { kind: 'wait', depends_on: 'm', on: 'signal', signal: 'stop' },
    f: { kind: 'finish', depends_on: 'w', output: '{{steps.w.output.payload}}' },
  },
};
const ON_RUN = waiter('onrun', { on: 'run', run: '{{inputs.target}}', timeout: '30s' });

async function start(life: DeskLife, workflow: string, key: string, inputs: Record<string, unknown> = {}) {
  const got = await life.desk.start({ workflow, startKey: key, principal: null, conversation: null, inputs });
  if (!got.ok) throw new Error(got.error);
  return got.run;
}

/** Resolves once step `step` of run `id` is suspended and its `wait.armed` logged (saved), failing after `ms`. */
async function armed(life: DeskLife, id: string, step: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!named(life.events, 'wait.armed').some((e) => e.run === id && e.step === step)) {
    if (Date.now() > deadline) throw new Error(`step ${step} of ${id} did not suspend within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('wait on: signal', () => {
  it('takes a signal the run held before the wait, and one sent after it without naming the run', async () => {
    const held = {
      name: 'held',
      steps: {
        m: { kind: 'manual' },
        nap: { kind: 'sleep', depends_on: 'm', duration: '200ms' },
        w: { kind: 'wait', depends_on: 'nap', on: 'signal', signal: 'go' },
        f: { kind: 'finish', depends_on: 'w', output: '{{steps.w.output}}' },
      },
    };
    const life = await openDesk(freshDir(), [held, { ...SIGNAL, name: 'late' }]);
    try {
      // The run is live but its wait is not armed yet when the signal comes (the `sleep` goes first).
      const early = await start(life, 'held', 'early');
      assert.equal(await life.desk.signal('go', { n: 1 }, 'k-early', early.id), 1, 'held on the run');
      assert.equal(life.desk.engine.get(early.id)?.steps['w']?.status, 'pending', 'premise: sent before the wait');
      const ended = await settled(life, early.id);
      assert.equal(ended.status, 'completed');
      assert.deepEqual(ended.output, { signal: 'go', payload: { n: 1 }, from: null });

      const late = await start(life, 'late', 'late');
      await armed(life, late.id, 'w');
      assert.equal(await life.desk.signal('go', { n: 2 }, 'k-late'), 1, 'delivered to the one run waiting on it');
      const lateEnd = await settled(life, late.id);
      assert.deepEqual(lateEnd.output, { signal: 'go', payload: { n: 2 }, from: null });
      assert.deepEqual(
        named(life.events, 'wait.resolved').map((e) => [e.step, e.on, e.status]),
        [
          ['w', 'signal', 'done'],
          ['w', 'signal', 'done'],
        ],
      );
    } finally {
      await life.close();
    }
  });

  it('survives a restart: the second life resumes the wait and the signal ends it', async () => {
    const dir = freshDir();
    const first = await openDesk(dir, [SIGNAL]);
    const run = await start(first, 'sig', 'restart');
    await armed(first, run.id, 'w');
    assert.equal(named(first.events, 'wait.armed').length, 1);
    await first.close();

    const second = await openDesk(dir, [SIGNAL]);
    try {
      const stored = second.desk.engine.get(run.id);
      assert.equal(stored?.steps['w']?.status, 'suspended', 'premise: the wait came back suspended, not replayed');
      assert.equal(named(second.events, 'restore.step.replay').length, 0);
      assert.equal(await second.desk.signal('go', 'after', 'k-after'), 1);
      const ended = await settled(second, run.id);
      assert.equal(ended.status, 'completed');
      assert.deepEqual(ended.output, { signal: 'go', payload: 'after', from: null });
    } finally {
      await second.close();
    }
  });

  it('times out as a `timeout` step with "wait timed out"; on_error: continue lets the run go on', async () => {
    const strict = waiter('strict', { on: 'signal', signal: 'never', timeout: '150ms' });
    const lenient = waiter('lenient', { on: 'signal', signal: 'never', timeout: '150ms', on_error: 'continue' });
    const life = await openDesk(freshDir(), [strict, lenient]);
    try {
      const a = await settled(life, (await start(life, 'strict', 'a')).id);
      assert.equal(a.status, 'failed');
      assert.equal(a.steps['w']?.status, 'timeout');
      assert.equal(a.error, 'step "w" failed: wait timed out');
      const b = await settled(life, (await start(life, 'lenient', 'b')).id);
      assert.equal(b.status, 'completed');
      assert.deepEqual(b.output, { error: 'wait timed out' });
    } finally {
      await life.close();
    }
  });
});

describe('wait on: run', () => {
  it("ends with the other run's end, whatever its status, across a restart", async () => {
    const dir = freshDir();
    const first = await openDesk(dir, [TARGET, ON_RUN]);
    const target = await start(first, 'target', 't1');
    const watcher = await start(first, 'onrun', 'w1', { target: target.id });
    await armed(first, watcher.id, 'w');
    await first.close();

    const second = await openDesk(dir, [TARGET, ON_RUN]);
    try {
      assert.ok(second.desk.engine.get(watcher.id), 'premise: the waiting run is live in the second life');
      await second.desk.engine.cancel(target.id, 'stopped by the test');
      const ended = await settled(second, watcher.id);
      assert.equal(ended.status, 'completed');
      assert.deepEqual(ended.output, {
        run: target.id,
        status: 'cancelled',
        output: null,
        error: 'stopped by the test',
      });

      const completed = await start(second, 'target', 't2');
      await armed(second, completed.id, 'w');
      const next = await start(second, 'onrun', 'w2', { target: completed.id });
      await armed(second, next.id, 'w');
      await second.desk.signal('stop', 'bye', 'k-stop', completed.id);
      assert.deepEqual((await settled(second, next.id)).output, {
        run: completed.id,
        status: 'completed',
        output: 'bye',
        error: null,
      });
    } finally {
      await second.close();
    }
  });

  it('fails the step on an unknown run', async () => {
    const life = await openDesk(freshDir(), [ON_RUN]);
    try {
      const run = await settled(life, (await start(life, 'onrun', 'x', { target: 'nope' })).id);
      assert.equal(run.status, 'failed');
      assert.equal(run.steps['w']?.error, 'wait run: no such run "nope"');
    } finally {
      await life.close();
    }
  });
});

describe('wait on: deadline', () => {
  it('is done after its timeout with {waited_ms}, and at once for an `until` already past', async () => {
    const timed = waiter('timed', { on: 'deadline', timeout: '200ms' });
    const past = waiter('past', { on: 'deadline', until: '2001-01-01T00:00:00Z' });
    const life = await openDesk(freshDir(), [timed, past]);
    try {
      const a = await settled(life, (await start(life, 'timed', 'a')).id);
      assert.equal(a.status, 'completed');
      const waited = (a.output as { waited_ms: number }).waited_ms;
      assert.ok(waited >= 200 && waited < 5_000, `waited ${waited} ms`);
      const b = await settled(life, (await start(life, 'past', 'b')).id);
      assert.equal(b.status, 'completed');
      assert.ok((b.output as { waited_ms: number }).waited_ms < 1_000);
    } finally {
      await life.close();
    }
  });

  it('keeps its due time across a restart (the wait started in the first life counts)', async () => {
    const dir = freshDir();
    const doc = waiter('nap', { on: 'deadline', timeout: '600ms' });
    const first = await openDesk(dir, [doc]);
    const run = await start(first, 'nap', 'n');
    await armed(first, run.id, 'w');
    const since = first.desk.engine.get(run.id)?.steps['w']?.wait?.sinceMs;
    await first.close();
    await new Promise((r) => setTimeout(r, 300));
    const second = await openDesk(dir, [doc]);
    try {
      const ended = await settled(second, run.id);
      const waited = (ended.output as { waited_ms: number }).waited_ms;
      assert.ok(waited >= 600, `waited ${waited} ms`);
      // waited_ms is measured from the wait's start as stored: a wait re-armed in the second life would count from
      // there instead, and this sum would land after the first life's start.
      assert.equal((ended.steps['w']?.endedMs ?? 0) - waited, since);
    } finally {
      await second.close();
    }
  });
});
