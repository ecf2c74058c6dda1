// The budget governor as pure arithmetic (reference §10.2): windows aligned to their unit, reserve / settle /
// release / charge, and `admit` → ok | wait | refuse | fail. No I/O and no clock: callers pass `now`.
import type { BudgetConfig, BudgetWindow, WindowUnit } from '../config/types.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** 1970-01-01 was a Thursday: weeks start on Monday 00:00Z, four days later. */
const FIRST_MONDAY = 4 * DAY;
const UNIT_MS: Record<WindowUnit, number> = { second: SECOND, minute: MINUTE, hour: HOUR, day: DAY, week: WEEK };
/** A pacing wait is never shorter than this. */
const MIN_PACE_WAIT_MS = 50;

/** One window's counters. `reserved` is in-flight estimates and is never stored. */
export interface WindowCounter {
  /** Which bucket of the window these counts belong to (see `windowIndex`). */
  index: number;
  tokens: number;
  requests: number;
  reserved: number;
}

/** A budget scope: `instance`, `conversation:<ctx>` or `principal:<id>`, its policy and its counters. */
export interface ScopeState {
  name: string;
  policy: Readonly<BudgetConfig>;
  /** Parallel to `policy.windows`. */
  windows: WindowCounter[];
  lifetime: number;
}

/** What a dispatch reserved: the estimate, and in which scope and bucket of each window. */
export interface Reservation {
  estimate: number;
  marks: Array<{ scope: string; indices: number[] }>;
  /** How much of the estimate real spend has already taken over (draw); absent = none. */
  drawn?: number;
  /** Its id in the fleet's shared window (replicas), where its holds are kept; absent = local only. */
  shared?: string;
}

export type Admission =
  | { kind: 'ok'; model?: string }
  | { kind: 'wait'; untilMs: number; reason: string }
  | { kind: 'refuse'; reason: string }
  | { kind: 'fail'; reason: string };

/** `HH:MM[Z]` → ms after midnight UTC (0 when absent). */
export function resetOffsetMs(reset: string | null): number {
  if (reset === null) return 0;
  const m = /^(\d{2}):(\d{2})Z?$/.exec(reset);
  if (!m) return 0;
  return Number(m[1]) * HOUR + Number(m[2]) * MINUTE;
}

function origin(w: BudgetWindow): number {
  const offset = w.per === 'day' || w.per === 'week' ? resetOffsetMs(w.reset) : 0;
  return (w.per === 'week' ? FIRST_MONDAY : 0) + offset;
}

/** The bucket `now` falls in: windows are fixed buckets aligned to their unit (day and week offset by `reset`). */
export function windowIndex(w: BudgetWindow, now: number): number {
  return Math.floor((now - origin(w)) / UNIT_MS[w.per]);
}

/** When bucket `index` starts (the previous bucket's reset). */
export function windowStart(w: BudgetWindow, index: number): number {
  return origin(w) + index * UNIT_MS[w.per];
}

/** The durable key of a window's counters: its unit, and its reset for day and week windows. */
export function windowKey(w: BudgetWindow): string {
  return w.per === 'day' || w.per === 'week' ? `${w.per}@${w.reset ?? '00:00'}` : w.per;
}

/** A scope with empty counters in the current buckets. */
export function newScope(name: string, policy: Readonly<BudgetConfig>, now: number): ScopeState {
  const windows = policy.windows.map((w) => ({ index: windowIndex(w, now), tokens: 0, requests: 0, reserved: 0 }));
  return { name, policy, windows, lifetime: 0 };
}

/** Moves every window whose bucket ended to the current bucket, with empty counts. */
export function roll(scope: ScopeState, now: number): void {
  scope.policy.windows.forEach((w, i) => {
    const index = windowIndex(w, now);
    const counter = scope.windows[i] as WindowCounter;
    if (counter.index !== index) Object.assign(counter, { index, tokens: 0, requests: 0, reserved: 0 });
  });
}

/**
 * Admits `estimate` tokens against `scopes` in order (sub-scopes first, the instance last): the first scope that
 * does not admit decides. A degrade admits on the first degrade model found. `own` is a reservation whose amounts
 * are not counted against the estimate (a turn's per-call admission is covered by its dispatch reservation).
 */
export function admit(scopes: readonly ScopeState[], estimate: number, now: number, own?: Reservation): Admission {
  let model: string | undefined;
  for (const scope of scopes) {
    roll(scope, now);
    const verdict = checkScope(scope, estimate, now, own);
    if (verdict.kind !== 'ok') return verdict;
    model ??= verdict.model;
  }
  return model === undefined ? { kind: 'ok' } : { kind: 'ok', model };
}

/** What `own` holds in window `i` of `scope`: its estimate and its one request, when in the current bucket. */
function ownShare(scope: ScopeState, i: number, own: Reservation | undefined): { tokens: number; requests: number } {
  const mark = own?.marks.find((m) => m.scope === scope.name);
  if (!own || !mark || mark.indices[i] !== scope.windows[i]?.index) return { tokens: 0, requests: 0 };
  return { tokens: own.estimate, requests: 1 };
}

function checkScope(scope: ScopeState, estimate: number, now: number, own?: Reservation): Admission {
  const { policy } = scope;
  if (policy.lifetime_tokens !== null && scope.lifetime + estimate > policy.lifetime_tokens) {
    return { kind: 'fail', reason: `lifetime token budget exhausted (${scope.name})` };
  }
  for (const [i, w] of policy.windows.entries()) {
    const c = scope.windows[i] as WindowCounter;
    // Waiting for a reset cannot help a turn bigger than the whole window: it would wait forever.
    const waits = policy.on_exhausted === 'wait' || policy.on_exhausted === 'slow';
    if (waits && w.tokens !== null && estimate > w.tokens) {
      const why = `an estimate of ${estimate} tokens exceeds its cap of ${w.tokens}`;
      return { kind: 'fail', reason: `budget too small (${scope.name} ${w.per} window): ${why}` };
    }
    const mine = ownShare(scope, i, own);
    const inFlight = c.reserved - mine.tokens;
    const nextReset = windowStart(w, c.index + 1);
    const tokensOut = w.tokens !== null && w.tokens - c.tokens - inFlight < estimate;
    const requestsOut = w.requests !== null && w.requests - (c.requests - mine.requests) <= 0;
    if (tokensOut || requestsOut)
      return onExhausted(policy, `budget exhausted (${scope.name} ${w.per} window)`, nextReset);
    if (policy.on_exhausted === 'slow' && w.tokens !== null) {
      const until = paceUntil(w, c, inFlight + estimate, policy.slow.factor, now);
      if (until !== null) {
        const reason = `budget pacing (${scope.name} ${w.per} window): slowing admissions`;
        return { kind: 'wait', untilMs: Math.max(until, now + MIN_PACE_WAIT_MS), reason };
      }
    }
  }
  return { kind: 'ok' };
}

/**
 * Tactic `slow`: by a fraction f of the window, f×cap×(elapsed fraction) + f×cap×0.05 may be spent. Returns when
 * the pace allows `used + wanted`, or null when it already does.
 */
function paceUntil(w: BudgetWindow, c: WindowCounter, wanted: number, factor: number, now: number): number | null {
  const cap = w.tokens as number;
  const start = windowStart(w, c.index);
  const span = UNIT_MS[w.per];
  const elapsed = Math.min(1, Math.max(0, (now - start) / span));
  const paced = factor * cap;
  const allowed = paced * elapsed + paced * 0.05;
  const need = c.tokens + wanted;
  if (need <= allowed) return null;
  const fraction = (need - paced * 0.05) / paced;
  return fraction >= 1 ? start + span : start + Math.ceil(fraction * span);
}

/** The tactic's answer once a window is exhausted (reference §10.2 "Tactic mapping"). */
function onExhausted(policy: Readonly<BudgetConfig>, reason: string, nextReset: number): Admission {
  switch (policy.on_exhausted) {
    case 'wait':
    case 'slow':
      return { kind: 'wait', untilMs: nextReset, reason };
    case 'degrade':
      return policy.degrade.model === null
        ? { kind: 'wait', untilMs: nextReset, reason }
        : { kind: 'ok', model: policy.degrade.model };
    case 'refuse':
      return { kind: 'refuse', reason: `refused: ${reason}` };
    case 'fail':
      return { kind: 'fail', reason };
  }
}

/** Reserves `estimate` in every window of every scope: reserved += estimate, requests += 1. */
export function reserve(scopes: readonly ScopeState[], estimate: number, now: number): Reservation {
  const marks = scopes.map((scope) => {
    roll(scope, now);
    for (const c of scope.windows) {
      c.reserved += estimate;
      c.requests += 1;
    }
    return { scope: scope.name, indices: scope.windows.map((c) => c.index) };
  });
  return { estimate, marks };
}

/** Each window counter of `r` still in the bucket it was reserved in (a rolled window dropped its reservations). */
function eachMarked(
  scopes: readonly ScopeState[],
  r: Reservation,
  now: number,
  visit: (c: WindowCounter) => void,
): void {
  for (const mark of r.marks) {
    const scope = scopes.find((s) => s.name === mark.scope);
    if (!scope) continue;
    roll(scope, now);
    scope.windows.forEach((c, i) => {
      if (c.index === mark.indices[i]) visit(c);
    });
  }
}

/** The turn finished: reserved −= estimate; the actual tokens count in the current buckets and the lifetime. */
export function settle(scopes: readonly ScopeState[], r: Reservation, tokens: number, now: number): void {
  const left = r.estimate - (r.drawn ?? 0);
  eachMarked(scopes, r, now, (c) => {
    c.reserved = Math.max(0, c.reserved - left);
  });
  const reserved = scopes.filter((s) => r.marks.some((m) => m.scope === s.name));
  charge(reserved, tokens, now);
}

/** Nothing ran (a spawn failure, a per-call check): reserved −= estimate, requests −= 1. */
export function release(scopes: readonly ScopeState[], r: Reservation, now: number): void {
  const left = r.estimate - (r.drawn ?? 0);
  eachMarked(scopes, r, now, (c) => {
    c.reserved = Math.max(0, c.reserved - left);
    c.requests = Math.max(0, c.requests - 1);
  });
}

/**
 * Spend of a running turn as it happens: it is charged at once, and takes over as much of the turn's reservation
 * (so the window never counts the same tokens twice); settle then releases only what is left.
 */
export function draw(scopes: readonly ScopeState[], r: Reservation, tokens: number, now: number): void {
  const take = Math.max(0, Math.min(tokens, r.estimate - (r.drawn ?? 0)));
  eachMarked(scopes, r, now, (c) => {
    c.reserved = Math.max(0, c.reserved - take);
  });
  r.drawn = (r.drawn ?? 0) + take;
  charge(
    scopes.filter((s) => r.marks.some((m) => m.scope === s.name)),
    tokens,
    now,
  );
}

/** Spend without a reservation (think children, compaction): tokens and lifetime grow in the current buckets. */
export function charge(scopes: readonly ScopeState[], tokens: number, now: number): void {
  if (tokens <= 0) return;
  for (const scope of scopes) {
    roll(scope, now);
    for (const c of scope.windows) c.tokens += tokens;
    scope.lifetime += tokens;
  }
}
