// Job or daemon (producers reference §3.1): which shape the instance has, when an idle job exits, and the exit
// code and stdout its `once` runs give (§2.10). Pure: the live definitions, the clock and the idle state come in.
import { EXIT, type ExitCode } from '../protocol/exitTable.js';

/** `lifecycle.run_until`. */
export type RunUntil = 'auto' | 'idle' | 'drained';
export type LifeShape = 'job' | 'daemon';

/**
 * Start kinds that keep firing after boot. `webhook` is one too: agentd's runtime left it out while its store
 * default counted it (§3.1 ⚠, §5 item 21); here one predicate serves both.
 */
export const RECURRING_STARTS: ReadonlySet<string> = new Set([
  'loop',
  'schedule',
  'subscribe',
  'signal',
  'event',
  'a2a',
  'webhook',
]);

interface ShapeDef {
  armed: boolean;
  steps: Record<string, { kind: string }>;
}

/** True when an armed definition has a start node that keeps firing (a long-lived workflow). */
export function hasRecurringStart(defs: Iterable<ShapeDef>): boolean {
  for (const def of defs) {
    if (def.armed && Object.values(def.steps).some((s) => RECURRING_STARTS.has(s.kind))) return true;
  }
  return false;
}

/** The shape: `idle` is a job, `drained` a daemon; `auto` is a daemon iff something listens or keeps firing. */
export function shapeOf(runUntil: RunUntil, listening: boolean, recurring: boolean): LifeShape {
  if (runUntil === 'idle') return 'job';
  if (runUntil === 'drained') return 'daemon';
  return listening || recurring ? 'daemon' : 'job';
}

export interface IdleView {
  shape: LifeShape;
  /** Anything in flight: a queued or running turn, a live or queued run, a timer that is not a start's own. */
  busy: boolean;
  recurring: boolean;
  /** When the instance last became idle (null while busy). */
  idleSince: number | null;
  graceMs: number;
}

export type IdleStep = { type: 'serve' } | { type: 'exit' } | { type: 'wait'; untilMs: number };

/**
 * What an instance does now: a daemon serves until drained; a busy job goes on; an idle job with no long-lived
 * workflow exits at once, one with recurring starts after `idle_grace` of continuous idleness (§3.1).
 */
export function nextIdleStep(view: IdleView, now: number): IdleStep {
  if (view.shape === 'daemon' || view.busy || view.idleSince === null) return { type: 'serve' };
  if (!view.recurring) return { type: 'exit' };
  const until = view.idleSince + view.graceMs;
  return now >= until ? { type: 'exit' } : { type: 'wait', untilMs: until };
}

export interface EndedRun {
  status: string;
  error: string | null;
  output: unknown;
}

/** A terminal run's exit code (§2.10): a failure's error text says which code it maps to. */
export function exitCodeForRun(run: Pick<EndedRun, 'status' | 'error'>): ExitCode {
  switch (run.status) {
    case 'completed':
      return EXIT.ok;
    case 'refused':
      return EXIT.refused;
    case 'stalled':
      return EXIT.loopDetected;
    case 'failed': {
      const error = run.error ?? '';
      if (/exhausted|budget/.test(error)) return EXIT.budget;
      if (/deadline/.test(error)) return EXIT.deadline;
      if (/intel/.test(error)) return EXIT.intel;
      return EXIT.generic;
    }
    default:
      return EXIT.generic;
  }
}

/** The job's code over its codes in order (the prompt's, then each `once` run's): the last non-zero wins. */
export function lastNonZero(codes: readonly ExitCode[]): ExitCode {
  let code: ExitCode = EXIT.ok;
  for (const c of codes) if (c !== EXIT.ok) code = c;
  return code;
}

/** A run's output as a job prints it (§2.10): a string raw, null nothing, other JSON pretty-printed. */
export function printedOutput(output: unknown): string | undefined {
  if (output === null || output === undefined) return undefined;
  if (typeof output === 'string') return output;
  return JSON.stringify(output, null, 2);
}
