import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  admit,
  charge,
  draw,
  newScope,
  release,
  reserve,
  resetOffsetMs,
  settle,
  windowIndex,
  windowKey,
  windowStart,
} from '../../../src/budget/governor.js';
import type { BudgetConfig, BudgetWindow } from '../../../src/config/types.js';

const MIN = 60_000;
const DAY = 86_400_000;

function budget(over: Partial<BudgetConfig> = {}): BudgetConfig {
  return {
    windows: [{ per: 'minute', tokens: 10_000, requests: null, reset: null }],
    lifetime_tokens: null,
    on_exhausted: 'wait',
    slow: { factor: 0.5 },
    degrade: { model: null },
    ...over,
  };
}

/** 2024-01-03 (a Wednesday) 12:00:30Z. */
const NOW = Date.UTC(2024, 0, 3, 12, 0, 30);

describe('windows', () => {
  it('align to their unit; day and week offset by reset; weeks start on Monday 00:00Z', () => {
    const minute: BudgetWindow = { per: 'minute', tokens: 1, requests: null, reset: null };
    assert.equal(windowStart(minute, windowIndex(minute, NOW)), Date.UTC(2024, 0, 3, 12, 0, 0));
    const day: BudgetWindow = { per: 'day', tokens: 1, requests: null, reset: '06:30Z' };
    assert.equal(windowStart(day, windowIndex(day, NOW)), Date.UTC(2024, 0, 3, 6, 30));
    assert.equal(windowStart(day, windowIndex(day, Date.UTC(2024, 0, 3, 6, 0))), Date.UTC(2024, 0, 2, 6, 30));
    const week: BudgetWindow = { per: 'week', tokens: 1, requests: null, reset: null };
    assert.equal(windowStart(week, windowIndex(week, NOW)), Date.UTC(2024, 0, 1));
    assert.equal(resetOffsetMs('01:02'), 62 * MIN);
    assert.equal(windowKey(day), 'day@06:30Z');
    assert.equal(windowKey(minute), 'minute');
  });
});

describe('admit', () => {
  it('admits while tokens last, then waits until the next reset', () => {
    const scope = newScope('instance', budget(), NOW);
    assert.deepEqual(admit([scope], 6_000, NOW), { kind: 'ok' });
    const r = reserve([scope], 6_000, NOW);
    const second = admit([scope], 6_000, NOW);
    assert.deepEqual(second, {
      kind: 'wait',
      untilMs: Date.UTC(2024, 0, 3, 12, 1),
      reason: 'budget exhausted (instance minute window)',
    });
    settle([scope], r, 500, NOW);
    assert.deepEqual(admit([scope], 6_000, NOW), { kind: 'ok' }, 'settling frees what was not spent');
    assert.equal(scope.windows[0]?.tokens, 500);
    assert.equal(scope.windows[0]?.requests, 1);
    assert.equal(scope.lifetime, 500);
  });

  it('maps the tactics: refuse says refused, fail does not, degrade admits on the degrade model', () => {
    const spend = (tactic: BudgetConfig['on_exhausted'], model: string | null = null) => {
      const scope = newScope('instance', budget({ on_exhausted: tactic, degrade: { model } }), NOW);
      charge([scope], 9_000, NOW);
      return admit([scope], 2_000, NOW);
    };
    assert.deepEqual(spend('refuse'), { kind: 'refuse', reason: 'refused: budget exhausted (instance minute window)' });
    assert.deepEqual(spend('fail'), { kind: 'fail', reason: 'budget exhausted (instance minute window)' });
    assert.deepEqual(spend('degrade', 'small'), { kind: 'ok', model: 'small' });
    assert.equal(spend('slow').kind, 'wait');
  });

  it('fails on the lifetime cap whatever the tactic', () => {
    const scope = newScope('instance', budget({ lifetime_tokens: 1_000, on_exhausted: 'degrade' }), NOW);
    charge([scope], 900, NOW);
    assert.deepEqual(admit([scope], 200, NOW), { kind: 'fail', reason: 'lifetime token budget exhausted (instance)' });
  });

  it('checks sub-scopes first: the first that does not admit decides', () => {
    const conv = newScope('conversation:c1', budget({ on_exhausted: 'refuse' }), NOW);
    const inst = newScope('instance', budget(), NOW);
    charge([conv, inst], 9_500, NOW);
    assert.equal(admit([conv, inst], 1_000, NOW).kind, 'refuse');
  });

  it('counts requests: a reservation takes one, a release gives it back', () => {
    const scope = newScope(
      'instance',
      budget({ windows: [{ per: 'hour', tokens: null, requests: 1, reset: null }] }),
      NOW,
    );
    const r = reserve([scope], 10, NOW);
    assert.equal(admit([scope], 10, NOW).kind, 'wait');
    release([scope], r, NOW);
    assert.equal(admit([scope], 10, NOW).kind, 'ok');
  });

  it("does not count a turn's own reservation against its per-call admission", () => {
    const scope = newScope(
      'instance',
      budget({ windows: [{ per: 'hour', tokens: 5_000, requests: 1, reset: null }] }),
      NOW,
    );
    const own = reserve([scope], 4_500, NOW);
    assert.equal(admit([scope], 4_500, NOW).kind, 'wait');
    assert.equal(admit([scope], 4_500, NOW, own).kind, 'ok');
  });

  it('starts a new bucket empty, and a settle after the roll does not touch the new reservations', () => {
    const scope = newScope('instance', budget(), NOW);
    const r = reserve([scope], 8_000, NOW);
    const later = NOW + MIN;
    assert.equal(admit([scope], 8_000, later).kind, 'ok');
    const r2 = reserve([scope], 8_000, later);
    settle([scope], r, 100, later);
    assert.equal(scope.windows[0]?.reserved, 8_000);
    assert.equal(scope.windows[0]?.tokens, 100);
    release([scope], r2, later);
    assert.equal(scope.windows[0]?.reserved, 0);
    assert.ok(later - NOW < DAY);
  });

  it('slow paces admissions across the window', () => {
    const policy = budget({ on_exhausted: 'slow', slow: { factor: 0.5 } });
    const start = Date.UTC(2024, 0, 3, 12, 0, 0);
    const scope = newScope('instance', policy, start);
    // At the start of the window 0.5 × 10 000 × 0.05 = 250 tokens are allowed.
    assert.equal(admit([scope], 200, start).kind, 'ok');
    const paced = admit([scope], 1_000, start);
    assert.equal(paced.kind, 'wait');
    // (1000 − 250) / 5000 of the minute: 9 s in.
    assert.equal(paced.kind === 'wait' && paced.untilMs, start + 9_000);
    assert.equal(admit([scope], 1_000, start + 9_000).kind, 'ok');
  });
});

describe('an estimate bigger than a whole window', () => {
  it('fails at once under wait or slow instead of waiting for a reset that can never admit it', () => {
    const waiting = admit([newScope('instance', budget(), NOW)], 12_000, NOW);
    assert.equal(waiting.kind, 'fail');
    assert.match(
      waiting.kind === 'fail' ? waiting.reason : '',
      /^budget too small \(instance minute window\): an estimate of 12000 tokens exceeds its cap of 10000$/,
    );
    const slow = admit([newScope('instance', budget({ on_exhausted: 'slow' }), NOW)], 12_000, NOW);
    assert.equal(slow.kind, 'fail');
    // The tactics that never wait keep their own answer.
    const refusing = admit([newScope('instance', budget({ on_exhausted: 'refuse' }), NOW)], 12_000, NOW);
    assert.ok(refusing.kind === 'refuse' && refusing.reason.startsWith('refused: budget exhausted'));
    assert.equal(admit([newScope('instance', budget(), NOW)], 10_000, NOW).kind, 'ok', 'premise: a full window fits');
  });
});

describe('draw', () => {
  it('charges a running turn’s spend at once and takes it out of its reservation, so nothing counts twice', () => {
    const scope = newScope('instance', budget(), NOW);
    const r = reserve([scope], 4_000, NOW);
    assert.equal(scope.windows[0]?.reserved, 4_000);
    draw([scope], r, 1_000, NOW);
    assert.deepEqual([scope.windows[0]?.reserved, scope.windows[0]?.tokens], [3_000, 1_000]);
    draw([scope], r, 5_000, NOW);
    assert.deepEqual([scope.windows[0]?.reserved, scope.windows[0]?.tokens], [0, 6_000], 'never below zero');
    settle([scope], r, 200, NOW);
    assert.deepEqual([scope.windows[0]?.reserved, scope.windows[0]?.tokens], [0, 6_200]);
    assert.equal(scope.lifetime, 6_200);
  });
});
