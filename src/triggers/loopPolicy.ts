// A loop start's next step as pure policy (producers reference §3.5, §5 item 14): what follows the run of the last
// iteration (stop on `until` or `max_iterations`, else the next firing `interval` after its end, or
// `backoff.initial` after a failure, times `backoff.factor` for each failure in a row before it, up to `backoff.max`). The due time comes from the stored end of the last run, never from "now",
// so a restart keeps the interval.

/** The timer kind of a loop's next iteration (a start's own next firing: it keeps no job alive). */
export const LOOP_KIND = 'loop';

export interface LoopSpec {
  intervalMs: number;
  delayMs: number;
  maxIterations: number;
  /** The wait after a failed iteration (default the interval). */
  backoffMs: number | null;
  /** Each further failure in a row multiplies the wait by this (default 1: the same wait). */
  backoffFactor?: number;
  /** The longest wait after a failure (default: none). */
  backoffMaxMs?: number | null;
}

/** The last iteration as the store has it. */
export interface LoopLast {
  iteration: number;
  live: boolean;
  ok: boolean;
  /** When it ended (ms). */
  finished: number;
  /** `until` over its outcome: true stops the loop (a CEL error counts as false). */
  untilMet: boolean;
  /** Failed iterations in a row ending with this one (0 when it succeeded; unset: 1 when it failed). */
  failures?: number;
}

export type LoopStep =
  | { type: 'fire'; iteration: number; atMs: number }
  | { type: 'wait' }
  | { type: 'stop'; reason: 'until' | 'max_iterations' };

/** Decides the loop's next step from its last iteration (null: never fired) at `armedMs`. */
export function nextLoopStep(spec: LoopSpec, last: LoopLast | null, armedMs: number): LoopStep {
  if (last === null)
    return spec.maxIterations < 1 ? { type: 'stop', reason: 'max_iterations' } : fire(1, armedMs + spec.delayMs);
  if (last.live) return { type: 'wait' };
  if (last.untilMet) return { type: 'stop', reason: 'until' };
  if (last.iteration >= spec.maxIterations) return { type: 'stop', reason: 'max_iterations' };
  return fire(last.iteration + 1, last.finished + (last.ok ? spec.intervalMs : failureWait(spec, last.failures ?? 1)));
}

/** The wait after the `failures`-th failure in a row: `initial × factor^(failures−1)`, capped at `max`. */
export function failureWait(spec: LoopSpec, failures: number): number {
  const initial = spec.backoffMs ?? spec.intervalMs;
  const grown = initial * (spec.backoffFactor ?? 1) ** Math.max(0, failures - 1);
  return Math.min(grown, spec.backoffMaxMs ?? Number.POSITIVE_INFINITY);
}

const fire = (iteration: number, atMs: number): LoopStep => ({ type: 'fire', iteration, atMs });
