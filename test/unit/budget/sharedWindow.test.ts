// The fleet's shared window as the governor sees it (replicas; interfaces reference §4.4): stored counts of the
// current bucket, every replica's live holds as reserved, and what a reservation stores.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admit, newScope, reserve, windowIndex } from '../../../src/budget/governor.js';
import { adoptShared, capSharedWait, holdRows, sharedScope } from '../../../src/budget/sharedWindow.js';
import type { BudgetConfig } from '../../../src/config/types.js';
import { RESERVATION_TTL_MS } from '../../../src/store/budgetPort.js';

const NOW = 1_700_000_000_000;
const POLICY: BudgetConfig = {
  windows: [{ per: 'day', tokens: 8_000, requests: 3, reset: null }],
  lifetime_tokens: 100_000,
  on_exhausted: 'refuse',
  slow: { factor: 0.5 },
  degrade: { model: null },
};
const INDEX = windowIndex(POLICY.windows[0] as BudgetConfig['windows'][number], NOW);
const row = (window: string, index: number, tokens: number, requests = 0) => ({
  scope: 'instance',
  window,
  index,
  tokens,
  requests,
});

describe('the shared budget window', () => {
  it('counts stored spend of the current bucket and every live hold', () => {
    const local = newScope('instance', POLICY, NOW);
    const counters = [row('day@00:00', INDEX, 3_000, 1), row('lifetime', 0, 42_000)];
    const view = sharedScope(local, counters, [row('day@00:00', INDEX, 4_500)], NOW);
    assert.deepEqual(view.windows[0], { index: INDEX, tokens: 3_000, requests: 1, reserved: 4_500 });
    assert.equal(view.lifetime, 42_000);
    // 3,000 spent + 4,500 held elsewhere leave 500: a turn estimated at 600 is refused fleet-wide.
    assert.equal(admit([view], 600, NOW).kind, 'refuse');
    assert.equal(admit([view], 500, NOW).kind, 'ok');
  });

  it('ignores a stored bucket that ended and holds of another bucket', () => {
    const local = newScope('instance', POLICY, NOW);
    const view = sharedScope(local, [row('day@00:00', INDEX - 1, 7_900, 3)], [row('day@00:00', INDEX - 1, 900)], NOW);
    assert.deepEqual(view.windows[0], { index: INDEX, tokens: 0, requests: 0, reserved: 0 });
  });

  it('stores a hold per scope and window, and adopts the counts but not the holds', () => {
    const local = newScope('instance', POLICY, NOW);
    const view = sharedScope(local, [row('day@00:00', INDEX, 1_000, 1)], [], NOW);
    const r = reserve([view], 2_000, NOW);
    assert.deepEqual(holdRows(r, [view]), [row('day@00:00', INDEX, 2_000, 1)]);
    adoptShared(local, view);
    assert.deepEqual(local.windows[0], { index: INDEX, tokens: 1_000, requests: 2, reserved: 0 });
  });

  it('a wait that live holds helped cause ends within a reservation life, not at the reset (review item 2)', () => {
    const waits = { ...POLICY, on_exhausted: 'wait' as const };
    const local = newScope('instance', waits, NOW);
    const view = sharedScope(local, [row('day@00:00', INDEX, 3_000, 1)], [row('day@00:00', INDEX, 4_500)], NOW);
    const admission = capSharedWait(admit([view], 600, NOW), [view], NOW);
    assert.deepEqual(admission.kind === 'wait' && admission.untilMs, NOW + RESERVATION_TTL_MS);
    // Spent, not held: only the reset helps.
    const spent = sharedScope(local, [row('day@00:00', INDEX, 7_900, 1)], [], NOW);
    const full = capSharedWait(admit([spent], 600, NOW), [spent], NOW);
    assert.ok(full.kind === 'wait' && full.untilMs > NOW + RESERVATION_TTL_MS);
  });
});
