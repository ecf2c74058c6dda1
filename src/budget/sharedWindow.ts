// A budget scope as the fleet's shared window has it (replicas; interfaces reference §4.4): the stored counters of
// its current buckets and every replica's live reservations. Pure: the ledger decides on these with the same
// governor arithmetic a single process uses, inside the store's lock.
import type { BudgetCounter } from '../domain/budget.js';
import { RESERVATION_TTL_MS } from '../store/budgetPort.js';
import { type Admission, newScope, type Reservation, type ScopeState, windowKey } from './governor.js';

/** The durable key of a scope's lifetime count. */
export const LIFETIME = 'lifetime';

/**
 * `local`'s policy over the shared numbers: each window's stored tokens and requests when the stored bucket is the
 * current one, `held` (live reservations, every replica's) as its reserved tokens, and the stored lifetime.
 */
export function sharedScope(
  local: ScopeState,
  counters: readonly BudgetCounter[],
  held: readonly BudgetCounter[],
  now: number,
): ScopeState {
  const scope = newScope(local.name, local.policy, now);
  local.policy.windows.forEach((w, i) => {
    const c = scope.windows[i];
    if (c === undefined) return;
    const key = windowKey(w);
    const row = counters.find((r) => r.scope === local.name && r.window === key);
    if (row !== undefined && row.index === c.index) Object.assign(c, { tokens: row.tokens, requests: row.requests });
    const mine = held.filter((h) => h.scope === local.name && h.window === key && h.index === c.index);
    c.reserved = mine.reduce((n, h) => n + h.tokens, 0);
  });
  scope.lifetime = counters.find((r) => r.scope === local.name && r.window === LIFETIME)?.tokens ?? 0;
  return scope;
}

/** The holds a reservation stores: its estimate and one request in each window of each scope, in its bucket. */
export function holdRows(r: Reservation, scopes: readonly ScopeState[]): BudgetCounter[] {
  return r.marks.flatMap((mark) => {
    const scope = scopes.find((s) => s.name === mark.scope);
    if (scope === undefined) return [];
    return scope.policy.windows.map((w, i) => ({
      scope: mark.scope,
      window: windowKey(w),
      index: mark.indices[i] ?? 0,
      tokens: r.estimate,
      requests: 1,
    }));
  });
}

/** Takes the shared view's counts (not the reservations: `reserved` stays this process's own in-flight). */
export function adoptShared(local: ScopeState, view: ScopeState): void {
  local.windows.forEach((c, i) => {
    const v = view.windows[i];
    if (v !== undefined && v.index === c.index) Object.assign(c, { tokens: v.tokens, requests: v.requests });
  });
  local.lifetime = view.lifetime;
}

/**
 * A wait in the shared window that live reservations helped cause ends within a reservation's life, not at the
 * window's reset: another replica's settle, or a dead replica's holds lapsing, wakes no turn here, so it asks again.
 */
export function capSharedWait(admission: Admission, views: readonly ScopeState[], now: number): Admission {
  if (admission.kind !== 'wait') return admission;
  if (!views.some((s) => s.windows.some((w) => w.reserved > 0))) return admission;
  return { ...admission, untilMs: Math.min(admission.untilMs, now + RESERVATION_TTL_MS) };
}
