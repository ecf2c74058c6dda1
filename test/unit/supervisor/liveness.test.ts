import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ChildVitals,
  classifyChild,
  DEFAULT_LIVENESS,
  pingIntervalMs,
  spareUsable,
} from '../../../src/supervisor/liveness.js';

const T0 = 1_000_000;
const PONG = DEFAULT_LIVENESS.pongTimeoutMs;
const PROGRESS = DEFAULT_LIVENESS.progressTimeoutMs;

/** A running child that was just spawned and has said nothing since. */
function child(over: Partial<ChildVitals> = {}): ChildVitals {
  return {
    phase: 'running',
    exited: false,
    spawnedAt: T0,
    lastEventAt: T0,
    lastPongAt: T0,
    lastBusyAt: 0,
    pingSentAt: null,
    deadlineAt: null,
    ...over,
  };
}

const healthOf = (c: ChildVitals, now: number): string => {
  const v = classifyChild(c, now);
  return v.kind === 'healthy' ? 'healthy' : v.health;
};

describe('classifyChild', () => {
  it('is healthy right after spawn', () => {
    assert.equal(healthOf(child(), T0), 'healthy');
  });

  it('an exited child is dead, whatever else it says', () => {
    assert.equal(healthOf(child({ exited: true, lastPongAt: T0 + 5 }), T0 + 10), 'dead');
  });

  it('past its deadline a child is deadline_exceeded even while it answers and progresses', () => {
    const c = child({ deadlineAt: T0 + 100, lastEventAt: T0 + 150, lastPongAt: T0 + 150 });
    assert.equal(healthOf(c, T0 + 100), 'healthy', 'at the deadline itself it still runs');
    const v = classifyChild(c, T0 + 101);
    assert.equal(v.kind === 'unhealthy' && v.health, 'deadline_exceeded');
    assert.match(v.kind === 'unhealthy' ? v.detail : '', /outlived its deadline/);
  });

  it('a child silent for longer than the pong timeout is stuck; at the timeout exactly it is not yet', () => {
    const c = child({ lastEventAt: T0, lastPongAt: T0 });
    assert.equal(healthOf(c, T0 + PONG), 'healthy');
    const v = classifyChild(c, T0 + PONG + 1);
    assert.equal(v.kind === 'unhealthy' && v.health, 'stuck');
    assert.match(v.kind === 'unhealthy' ? v.detail : '', /no answer to pings for 10\.0 s/);
  });

  it('recent progress does not excuse a silent child (a stopped worker is caught by the pong timeout)', () => {
    const c = child({ lastEventAt: T0 + 5_000, lastPongAt: T0 + 5_000 });
    assert.equal(healthOf(c, T0 + 5_000 + PONG + 1), 'stuck');
  });

  it('a running child that answers pings but makes no progress outside a long call is no_progress', () => {
    const now = T0 + PROGRESS + 1;
    const c = child({ lastPongAt: now - 1_000 });
    assert.equal(healthOf(c, T0 + PROGRESS), 'healthy', 'at the progress timeout exactly it is not yet');
    const v = classifyChild(c, now);
    assert.equal(v.kind === 'unhealthy' && v.health, 'no_progress');
    assert.match(v.kind === 'unhealthy' ? v.detail : '', /outside a model or tool call/);
  });

  it('a child inside a long call (its pongs say busy) is healthy however long the call lasts', () => {
    const now = T0 + 10 * PROGRESS;
    assert.equal(healthOf(child({ lastPongAt: now - 500, lastBusyAt: now - 500 }), now), 'healthy');
  });

  it('the progress clock restarts when a long call ends: busy until recently is not idle since the last event', () => {
    const now = T0 + 3 * PROGRESS;
    const callEnded = now - PROGRESS + 1_000;
    assert.equal(healthOf(child({ lastPongAt: now - 100, lastBusyAt: callEnded }), now), 'healthy');
    assert.equal(healthOf(child({ lastPongAt: now - 100, lastBusyAt: now - PROGRESS - 1 }), now), 'no_progress');
  });

  it('an idle spare is expected to make no progress: only its answers count', () => {
    const spare = child({ phase: 'spare', lastPongAt: T0 + 10 * PROGRESS });
    assert.equal(healthOf(spare, T0 + 10 * PROGRESS + 1_000), 'healthy');
    assert.equal(healthOf(spare, T0 + 10 * PROGRESS + PONG + 1), 'stuck');
  });

  it('takes its limits as an argument (tests and config lower them)', () => {
    const limits = { pongTimeoutMs: 300, progressTimeoutMs: 1_000 };
    assert.equal(classifyChild(child(), T0 + 301, limits).kind, 'unhealthy');
    assert.equal(classifyChild(child({ lastPongAt: T0 + 900 }), T0 + 1_001, limits).kind, 'unhealthy');
    assert.equal(classifyChild(child({ lastPongAt: T0 + 900 }), T0 + 1_000, limits).kind, 'healthy');
  });
});

describe('spareUsable', () => {
  const spare = (over: Partial<ChildVitals>) => child({ phase: 'spare', ...over });

  it('a healthy spare with no ping outstanding, or a fresh one, may take a turn', () => {
    assert.equal(spareUsable(spare({}), T0 + 100, 1_000), true);
    assert.equal(spareUsable(spare({ pingSentAt: T0 + 50 }), T0 + 1_050, 1_000), true);
  });

  it('a spare that let a ping go unanswered past answerWithinMs is not handed a turn, though not yet stuck', () => {
    const s = spare({ pingSentAt: T0 + 50 });
    assert.equal(classifyChild(s, T0 + 1_051).kind, 'healthy', 'premise: the pong timeout has not passed');
    assert.equal(spareUsable(s, T0 + 1_051, 1_000), false);
  });

  it('an unhealthy spare is never usable', () => {
    assert.equal(spareUsable(spare({ exited: true }), T0, 1_000), false);
    assert.equal(spareUsable(spare({}), T0 + PONG + 1, Number.POSITIVE_INFINITY), false);
  });
});

describe('pingIntervalMs', () => {
  it('is a third of the pong timeout, clamped to [50 ms, 5 s]', () => {
    assert.equal(pingIntervalMs(DEFAULT_LIVENESS), 3_333);
    assert.equal(pingIntervalMs({ ...DEFAULT_LIVENESS, pongTimeoutMs: 60_000 }), 5_000);
    assert.equal(pingIntervalMs({ ...DEFAULT_LIVENESS, pongTimeoutMs: 90 }), 50);
    assert.equal(pingIntervalMs({ ...DEFAULT_LIVENESS, pongTimeoutMs: 900 }), 300);
  });
});
