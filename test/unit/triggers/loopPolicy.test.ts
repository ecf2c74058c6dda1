// A loop's next step (producers reference §3.5): from the stored last iteration, never from "now".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type LoopLast, nextLoopStep } from '../../../src/triggers/loopPolicy.js';

const spec = { intervalMs: 1_000, delayMs: 0, maxIterations: 3, backoffMs: 5_000 };
const last = (over: Partial<LoopLast>): LoopLast => ({
  iteration: 1,
  live: false,
  ok: true,
  finished: 10_000,
  untilMet: false,
  ...over,
});

describe('nextLoopStep', () => {
  it('fires the first iteration after the delay from arming', () => {
    assert.deepEqual(nextLoopStep({ ...spec, delayMs: 200 }, null, 50), { type: 'fire', iteration: 1, atMs: 250 });
  });

  it('times the next iteration from the stored end of the last run (a restart keeps the interval)', () => {
    assert.deepEqual(nextLoopStep(spec, last({}), 99_999), { type: 'fire', iteration: 2, atMs: 11_000 });
  });

  it('waits on the backoff after a failure, and for a live run', () => {
    assert.deepEqual(nextLoopStep(spec, last({ ok: false }), 0), { type: 'fire', iteration: 2, atMs: 15_000 });
    assert.deepEqual(nextLoopStep(spec, last({ live: true }), 0), { type: 'wait' });
  });

  it('stops on until, then on max_iterations', () => {
    assert.deepEqual(nextLoopStep(spec, last({ untilMet: true, iteration: 3 }), 0), { type: 'stop', reason: 'until' });
    assert.deepEqual(nextLoopStep(spec, last({ iteration: 3 }), 0), { type: 'stop', reason: 'max_iterations' });
  });
});
