// A loop's next step (producers reference §3.5): from the stored last iteration, never from "now".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureWait, type LoopLast, nextLoopStep } from '../../../src/triggers/loopPolicy.js';
import { loopProblems, loopSpecOf } from '../../../src/workflows/startFields.js';

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

  it('grows the wait by backoff.factor for each failure in a row, up to backoff.max', () => {
    const grows = loopSpecOf({ interval: '1s', backoff: { initial: '2s', factor: 3, max: '30s' } });
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => failureWait(grows, n)),
      [2_000, 6_000, 18_000, 30_000],
    );
    assert.deepEqual(nextLoopStep(grows, last({ ok: false, failures: 3 }), 0), {
      type: 'fire',
      iteration: 2,
      atMs: 28_000,
    });
    const flat = loopSpecOf({ interval: '1s', backoff: { initial: '2s' } });
    assert.equal(failureWait(flat, 5), 2_000, 'no factor: the same wait each time');
  });

  it('refuses a backoff.factor under 1 and a backoff.max that is no duration', () => {
    assert.deepEqual(loopProblems({ backoff: { initial: '1s', factor: 0.5, max: 'soon' } }), [
      'backoff.factor: must be a number, 1 or more',
      loopProblems({ backoff: { initial: '1s', max: 'soon' } })[0],
    ]);
    assert.match(String(loopProblems({ backoff: { initial: '1s', max: 'soon' } })[0]), /^backoff\.max: /);
  });
});
