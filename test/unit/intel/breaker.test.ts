import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Breaker } from '../../../src/intel/breaker.js';
import {
  mayRetry,
  newBreaker,
  nextEndpoint,
  recordFailure,
  recordSuccess,
  releaseProbe,
} from '../../../src/intel/breaker.js';

/** Fails endpoint `i` `n` times at `now`; returns the breaker and every transition seen. */
function fail(b: Breaker, i: number, n: number, now: number) {
  const transitions = [];
  for (let k = 0; k < n; k++) {
    const step = recordFailure(b, i, now);
    b = step.breaker;
    transitions.push(...step.transitions);
  }
  return { b, transitions };
}

describe('breaker', () => {
  it('starts closed and picks the lowest index', () => {
    const b = newBreaker(3);
    assert.equal(nextEndpoint(b, 0).index, 0);
    assert.equal(nextEndpoint(b, 0, new Set([0])).index, 1);
    assert.equal(nextEndpoint(b, 0, new Set([0, 1, 2])).index, null);
  });
  it('opens after 3 consecutive failures, not before', () => {
    const two = fail(newBreaker(2), 0, 2, 1000);
    assert.deepEqual(two.transitions, []);
    assert.equal(mayRetry(two.b, 0), true);
    const three = fail(two.b, 0, 1, 1000);
    assert.deepEqual(three.transitions, [{ endpoint: 0, state: 'open' }]);
    assert.equal(mayRetry(three.b, 0), false);
    assert.equal(nextEndpoint(three.b, 1000).index, 1, 'an open endpoint is skipped');
  });
  it('a success resets the consecutive count', () => {
    let { b } = fail(newBreaker(1), 0, 2, 0);
    b = recordSuccess(b, 0).breaker;
    const after = fail(b, 0, 2, 0);
    assert.deepEqual(after.transitions, []);
  });
  it('after the 5 s cooldown turns half-open and lets exactly one probe through', () => {
    const { b } = fail(newBreaker(2), 0, 3, 1000);
    assert.equal(nextEndpoint(b, 5999).index, 1, 'still cooling down');
    const probe = nextEndpoint(b, 6000);
    assert.equal(probe.index, 0);
    assert.deepEqual(probe.transitions, [{ endpoint: 0, state: 'half_open' }]);
    assert.equal(mayRetry(probe.breaker, 0), false, 'a probe is never retried in place');
    assert.equal(nextEndpoint(probe.breaker, 6000).index, 1, 'the one probe is out');
  });
  it('a successful probe closes the endpoint (sticky primary again)', () => {
    const { b } = fail(newBreaker(2), 0, 3, 0);
    const probe = nextEndpoint(b, 5000);
    const closed = recordSuccess(probe.breaker, 0);
    assert.deepEqual(closed.transitions, [{ endpoint: 0, state: 'closed' }]);
    assert.equal(nextEndpoint(closed.breaker, 5000).index, 0);
    assert.deepEqual(recordSuccess(closed.breaker, 0).transitions, [], 'no transition when already closed');
  });
  it('a failed probe re-opens at once with the cooldown doubled, up to 60 s', () => {
    let b = fail(newBreaker(1), 0, 3, 0).b;
    let now = 0;
    const cooldowns = [];
    for (let k = 0; k < 6; k++) {
      const until = b[0]?.openUntil ?? 0;
      cooldowns.push(until - now);
      now = until;
      const probe = nextEndpoint(b, now);
      assert.equal(probe.index, 0);
      const step = recordFailure(probe.breaker, 0, now);
      assert.deepEqual(step.transitions, [{ endpoint: 0, state: 'open' }]);
      b = step.breaker;
    }
    assert.deepEqual(cooldowns, [5000, 10_000, 20_000, 40_000, 60_000, 60_000]);
  });
  it('a success after re-opening resets the cooldown to 5 s', () => {
    let b = fail(newBreaker(1), 0, 3, 0).b;
    b = recordFailure(nextEndpoint(b, 5000).breaker, 0, 5000).breaker; // 10 s cooldown
    b = recordSuccess(nextEndpoint(b, 15_000).breaker, 0).breaker;
    b = fail(b, 0, 3, 20_000).b;
    assert.equal(b[0]?.openUntil, 25_000);
  });
  it('releasing a probe (a fatal answer) lets the next call probe again', () => {
    const { b } = fail(newBreaker(1), 0, 3, 0);
    const probe = nextEndpoint(b, 5000);
    assert.equal(nextEndpoint(probe.breaker, 5000).index, null);
    const released = releaseProbe(probe.breaker, 0);
    assert.equal(nextEndpoint(released, 5000).index, 0);
  });
  it('is pure: inputs are never mutated', () => {
    const b = newBreaker(1);
    const frozen = JSON.stringify(b);
    fail(b, 0, 3, 0);
    nextEndpoint(b, 10_000);
    assert.equal(JSON.stringify(b), frozen);
  });
});
