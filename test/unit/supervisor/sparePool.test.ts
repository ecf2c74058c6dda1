// The spare pool's judgement of an unanswered ping, with real child processes (a worker double that never answers)
// and a clock the test moves: a ping unanswered for a whole interval while the supervisor ran normally retires the
// spare; one the supervisor could not read because its own loop stalled does not.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  type SpareWatch,
  type WorkerCallbacks,
  type WorkerHandle,
  WorkerPool,
} from '../../../src/supervisor/workerHandle.js';

/** A process that reads its stdin and never writes a frame. */
const SILENT = { execPath: process.execPath, args: ['-e', 'process.stdin.resume(); setInterval(() => {}, 60_000)'] };
const NO_CALLBACKS: WorkerCallbacks = { onFrame: () => {}, onClose: () => {}, onProtocolError: () => {} };
const started: WorkerHandle[] = [];
const pools: WorkerPool[] = [];

/** A pool of one spare on clock `clock.t`, ping interval 100 ms; `unhealthy` collects the spares it retired. */
function pool(clock: { t: number }, unhealthy: number[]): WorkerPool {
  const watch: SpareWatch = {
    now: () => clock.t,
    limits: { pongTimeoutMs: 300, progressTimeoutMs: 60_000 },
    answerWithinMs: 100,
    onUnhealthy: (pid) => unhealthy.push(pid),
  };
  const p = new WorkerPool(SILENT, 1, undefined, watch);
  pools.push(p);
  return p;
}

after(() => {
  for (const p of pools) p.close();
  for (const w of started) w.kill();
});

describe('WorkerPool spares and a stalled supervisor', () => {
  it('retires a spare whose ping went unanswered for an interval of normal running', () => {
    const clock = { t: 1_000 };
    const unhealthy: number[] = [];
    const p = pool(clock, unhealthy);
    p.fill();
    const [spare] = p.sparePids;
    p.check(clock.t);
    clock.t += 100;
    p.check(clock.t);
    clock.t += 50;
    const taken = p.take(NO_CALLBACKS);
    started.push(taken);
    assert.deepEqual(unhealthy, [spare]);
    assert.notEqual(taken.pid, spare);
  });

  it('hands out a spare whose pong is only unread because the supervisor itself stalled', () => {
    const clock = { t: 1_000 };
    const unhealthy: number[] = [];
    const p = pool(clock, unhealthy);
    p.fill();
    const [spare] = p.sparePids;
    p.check(clock.t);
    // The loop stalls for two and a half intervals: no watchdog pass, no pipe read.
    clock.t += 250;
    const taken = p.take(NO_CALLBACKS);
    started.push(taken);
    assert.deepEqual(unhealthy, []);
    assert.equal(taken.pid, spare);
  });
});
