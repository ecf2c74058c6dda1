import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as policy from '../../../src/triggers/subscribePolicy.js';

const { planFiring, planUpdate, pushSample, subscribeOptionProblems, subscribeOptions } = policy;

describe('subscribeOptionProblems', () => {
  it('accepts the fields as documented and names each bad one', () => {
    assert.deepEqual(subscribeOptionProblems({ window: { samples: 5 }, coalesce: true }), []);
    assert.deepEqual(subscribeOptionProblems({ deliver: 'signal', on_no_listener: 'drop' }), []);
    assert.match(subscribeOptionProblems({ window: { samples: 0 } })[0] ?? '', /^window: /);
    assert.match(subscribeOptionProblems({ window: 101 })[0] ?? '', /^window: /);
    assert.match(subscribeOptionProblems({ coalesce: 'yes' })[0] ?? '', /^coalesce: /);
    assert.match(subscribeOptionProblems({ deliver: 'mail' })[0] ?? '', /^deliver: must be one of start, signal/);
    assert.match(subscribeOptionProblems({ on_no_listener: 'drop' })[0] ?? '', /applies only with deliver: signal/);
    assert.match(subscribeOptionProblems({ deliver: 'signal', coalesce: true })[0] ?? '', /^coalesce: /);
  });
});

describe('pushSample', () => {
  it('keeps the newest samples, oldest first; no window keeps none', () => {
    assert.deepEqual(pushSample([1, 2], 3, 2), [2, 3]);
    assert.deepEqual(pushSample([], 'a', 3), ['a']);
    assert.deepEqual(pushSample([1], 2, 0), []);
  });
});

describe('planUpdate', () => {
  const opts = (debounce_ms: number) => subscribeOptions({ debounce_ms });
  it('fires at once without debounce; the first update opens the window, later ones join it', () => {
    assert.deepEqual(planUpdate(opts(0), null, 1_000), { type: 'fire' });
    assert.deepEqual(planUpdate(opts(500), null, 1_000), { type: 'open', due: 1_500 });
    assert.deepEqual(planUpdate(opts(500), 1_500, 1_200), { type: 'join' });
  });
});

describe('planFiring', () => {
  it('starts a run, or holds it behind a live run of the node with coalesce', () => {
    assert.deepEqual(planFiring(subscribeOptions({}), 1, ['r1']), { type: 'start' });
    assert.deepEqual(planFiring(subscribeOptions({ coalesce: true }), 1, ['r1']), { type: 'hold' });
    assert.deepEqual(planFiring(subscribeOptions({ coalesce: true }), 0, ['r9']), { type: 'start' });
  });
  it('delivers a signal to the live runs; with none, on_no_listener starts one or drops it', () => {
    const signal = subscribeOptions({ deliver: 'signal' });
    assert.deepEqual(planFiring(signal, 0, ['r1', 'r2']), { type: 'signal', runs: ['r1', 'r2'] });
    assert.deepEqual(planFiring(signal, 0, []), { type: 'start' });
    const drop = subscribeOptions({ deliver: 'signal', on_no_listener: 'drop' });
    assert.deepEqual(planFiring(drop, 0, []), { type: 'drop', reason: 'no_listener' });
  });
});
