// The spare pool's judgement of an unanswered ping, with real child processes (a worker double that never answers)
// and a clock the test moves: a ping unanswered for a whole interval while the supervisor ran normally retires the
// spare; one the supervisor could not read because its own loop stalled does not.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import type { WorkerCallbacks, WorkerHandle } from '../../../src/supervisor/workerHandle.js';
import { type SpareWatch, WorkerPool } from '../../../src/supervisor/workerPool.js';

/** A process that reads its stdin and never writes a frame. */
const SILENT = { execPath: process.execPath, args: ['-e', 'process.stdin.resume(); setInterval(() => {}, 60_000)'] };
const NO_CALLBACKS: WorkerCallbacks = { onFrame: () => {}, onClose: () => {}, onProtocolError: () => {} };
const started: WorkerHandle[] = [];
const pools: WorkerPool[] = [];

/**
 * A pool of one spare, filled and pinged once at t = 1000 (ping interval 100 ms); `advance` moves its clock, with a
 * watchdog pass or without one (a stall); `take` hands a worker out; `unhealthy` lists the spares it retired.
 */
function pinged() {
  const clock = { t: 1_000 };
  const unhealthy: number[] = [];
  const watch: SpareWatch = {
    now: () => clock.t,
    limits: { pongTimeoutMs: 300, progressTimeoutMs: 60_000 },
    answerWithinMs: 100,
    onUnhealthy: (pid) => unhealthy.push(pid),
  };
  const p = new WorkerPool(SILENT, 1, undefined, watch);
  pools.push(p);
  p.fill();
  const spare = p.sparePids[0];
  p.check(clock.t);
  const advance = (ms: number, pass: boolean): void => {
    clock.t += ms;
    if (pass) p.check(clock.t);
  };
  const take = (): WorkerHandle => {
    const taken = p.take(NO_CALLBACKS);
    started.push(taken);
    return taken;
  };
  return { spare, unhealthy, advance, take };
}

after(() => {
  for (const p of pools) p.close();
  for (const w of started) w.kill();
});

describe('WorkerPool spares and a stalled supervisor', () => {
  it('retires a spare whose ping went unanswered for an interval of normal running', () => {
    const { spare, unhealthy, advance, take } = pinged();
    advance(100, true);
    advance(50, false);
    assert.notEqual(take().pid, spare);
    assert.deepEqual(unhealthy, [spare]);
  });

  it('hands out a spare whose pong is only unread because the supervisor itself stalled', () => {
    const { spare, unhealthy, advance, take } = pinged();
    // The loop stalls for two and a half intervals: no watchdog pass, no pipe read.
    advance(250, false);
    assert.equal(take().pid, spare);
    assert.deepEqual(unhealthy, []);
  });
});

describe('WorkerPool.fill when a spawn throws', () => {
  it('backs off instead of throwing out of fill (setImmediate, the watchdog, restore)', () => {
    // An environment node's spawn rejects synchronously stands for ENOMEM / EAGAIN thrown by spawn itself. Premise:
    // without the catch in fill() this call throws, and from setImmediate that is an uncaught exception.
    const clock = { t: 5_000 };
    const failures: Array<[string, number]> = [];
    const watch: SpareWatch = {
      now: () => clock.t,
      limits: { pongTimeoutMs: 60_000, progressTimeoutMs: 60_000 },
      answerWithinMs: 60_000,
      onUnhealthy: () => {},
      onSpawnFailed: (err, retryInMs) => failures.push([(err as { code?: string }).code ?? '', retryInMs]),
    };
    const p = new WorkerPool(SILENT, 2, { BROKEN: 'a\0b' }, watch);
    pools.push(p);
    assert.doesNotThrow(() => p.fill());
    assert.deepEqual(p.sparePids, []);
    assert.equal(failures.length, 1);
    assert.equal(failures[0]?.[1], 100);
    p.fill(); // within the backoff: not tried again
    assert.equal(failures.length, 1);
    clock.t += 100;
    p.fill();
    assert.deepEqual(
      failures.map(([, ms]) => ms),
      [100, 200],
      'the delay doubles while spawns keep failing',
    );
  });
});

/** A watch whose limits never judge a spare in these tests. */
const UNWATCHED_LONG: SpareWatch = {
  now: () => 1_000,
  limits: { pongTimeoutMs: 600_000, progressTimeoutMs: 600_000 },
  answerWithinMs: 600_000,
  onUnhealthy: () => {},
};

describe('WorkerPool.check after a demand peak lapsed', () => {
  it('stops the longest idle spares first, fresh or reused', () => {
    const clock = { t: 1_000 };
    const watch: SpareWatch = {
      now: () => clock.t,
      limits: { pongTimeoutMs: 600_000, progressTimeoutMs: 600_000 },
      answerWithinMs: 600_000,
      onUnhealthy: () => {},
    };
    const p = new WorkerPool(SILENT, 1, undefined, watch, {
      maxDemand: 3,
      reuse: { maxTurns: 10, maxRssBytes: Number.POSITIVE_INFINITY },
    });
    pools.push(p);
    p.noteDemand(3);
    p.noteDemand(0);
    p.fill();
    const [a, b, oldest] = [p.take(NO_CALLBACKS), p.take(NO_CALLBACKS), p.sparePids[0]];
    started.push(a, b);
    clock.t = 2_000;
    a.detach();
    assert.equal(p.release(a), true);
    clock.t = 5_000;
    p.fill();
    const freshest = p.sparePids.find((pid) => pid !== a.pid && pid !== oldest);
    // Premise: a reused worker (idle since 2000) sits in front of a fresh spare spawned at 1000 and one at 5000, so
    // trimming from the back (pop) would stop the newest spare and keep one idle since 1000.
    assert.deepEqual(p.sparePids, [a.pid, oldest, freshest]);
    clock.t = 40_000;
    p.check(clock.t);
    assert.deepEqual(p.sparePids, [freshest]);
  });
});

/** The AGENTD_WORKER_PRELOAD a live process was started with (Linux /proc). */
function preloadOf(pid: number): string | undefined {
  const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return env.find((e) => e.startsWith('AGENTD_WORKER_PRELOAD='))?.slice('AGENTD_WORKER_PRELOAD='.length);
}

describe('WorkerPool spares past the base', () => {
  it('start with a turn preload when demand calls for them; the base spare does not', () => {
    const env = { ...process.env, AGENTD_WORKER_PRELOAD: 'tls' };
    const p = new WorkerPool(SILENT, 1, env, UNWATCHED_LONG, {
      maxDemand: 3,
      reuse: { maxTurns: 10, maxRssBytes: Number.POSITIVE_INFINITY },
    });
    pools.push(p);
    p.fill();
    const [base] = p.sparePids;
    p.noteDemand(3);
    p.noteDemand(0);
    p.fill();
    assert.equal(p.sparePids.length, 3, 'premise: the demand peak called for two more spares');
    assert.deepEqual(
      p.sparePids.map((pid) => (pid === base ? `base ${preloadOf(pid)}` : preloadOf(pid))),
      ['base tls', 'turn,tls', 'turn,tls'],
    );
  });
});

describe('WorkerPool base spares', () => {
  it('preload while turns run or a recent peak holds; stay lean only once the daemon is idle', () => {
    const clock = { t: 1_000 };
    const env = { ...process.env, AGENTD_WORKER_PRELOAD: 'tls' };
    const p = new WorkerPool(SILENT, 1, env, { ...UNWATCHED_LONG, now: () => clock.t });
    pools.push(p);
    p.fill();
    assert.deepEqual(p.sparePids.map(preloadOf), ['tls'], 'an idle daemon starts a lean base spare');
    // A turn takes the spare (a one-turn worker, never coming back): its replacement is the next turn's.
    started.push(p.take(NO_CALLBACKS));
    p.noteDemand(1);
    p.fill();
    assert.deepEqual(p.sparePids.map(preloadOf), ['turn,tls'], 'with a turn running the replacement preloads');
    started.push(p.take(NO_CALLBACKS));
    p.noteDemand(0);
    p.fill();
    assert.deepEqual(p.sparePids.map(preloadOf), ['turn,tls'], 'within the recent peak it still preloads');
    started.push(p.take(NO_CALLBACKS));
    clock.t += 60_000;
    p.noteDemand(0);
    p.fill();
    assert.deepEqual(p.sparePids.map(preloadOf), ['tls'], 'once the peak lapsed the daemon is idle: lean again');
  });
});
