// Which durable timers are due and when to look again (producers reference §3.8). Pure: the clock is an argument.
import type { TimerRecord } from '../domain/timer.js';

/** setTimeout's ceiling; a longer wait re-arms. */
export const MAX_TIMER_MS = 2_147_483_647;

export interface TimerPlan {
  /** Timers whose due time has come, earliest first (then by id). */
  due: TimerRecord[];
  /** How long until the next timer not yet due, capped at MAX_TIMER_MS; null when none is left. */
  wakeInMs: number | null;
}

/** Orders timers by due time, then id: the order they fire in. */
export function compareTimers(a: Pick<TimerRecord, 'due' | 'id'>, b: Pick<TimerRecord, 'due' | 'id'>): number {
  return a.due - b.due || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Splits `timers` (minus those `busy` firing) into what is due at `now` and how long to sleep for the rest. */
export function planTimers(timers: Iterable<TimerRecord>, now: number, busy: ReadonlySet<string>): TimerPlan {
  const due: TimerRecord[] = [];
  let next: number | null = null;
  for (const timer of timers) {
    if (busy.has(timer.id)) continue;
    if (timer.due <= now) due.push(timer);
    else if (next === null || timer.due < next) next = timer.due;
  }
  due.sort(compareTimers);
  return { due, wakeInMs: next === null ? null : Math.min(MAX_TIMER_MS, next - now) };
}
