// The scheduler's pass over one run (producers reference §2.6): which steps are ready, which are pruned, which
// waits are due, and whether the run ends. Pure: the run and the clock in, a decision out.
import { type StepDef, type StepState, TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import { compileCel, evalPredicate } from '../expr/cel.js';
import { topoOrder } from './graph.js';
import { signalHeld } from './kinds/waitKind.js';
import { liveInstances } from './nesting.js';
import { nestHasWork, nestOpensAt } from './nestMoves.js';
import { NO_SPILLS, type SpillValues, spillScope } from './stepSpill.js';

export type RunDecision =
  | { type: 'end'; status: 'failed' | 'stalled'; error: string; event?: 'run.deadline' | 'run.stalled' }
  | { type: 'prune'; steps: string[] }
  | { type: 'due'; steps: string[] }
  | { type: 'ready'; steps: string[] }
  | { type: 'nest'; steps: string[] }
  | { type: 'idle'; wakeAt: number | null };

const FAILED = new Set(['failed', 'cancelled', 'timeout']);
const SATISFIED = new Set(['done', 'skipped', 'pruned']);
const IN_FLIGHT = new Set(['running', 'suspended']);

type Readiness = 'ready' | 'prune' | 'wait' | { whenError: string };

/** Dependency order per definition: computed once, not on every pass (a run keeps its definition object). */
const ORDERS = new WeakMap<object, readonly string[]>();

function orderOf(steps: Readonly<Record<string, StepDef>>): readonly string[] {
  let order = ORDERS.get(steps);
  if (order === undefined) {
    order = topoOrder(steps).order;
    ORDERS.set(steps, order);
  }
  return order;
}

/** Readiness of `step` of the scope whose ids start with `prefix` (`''` at top level, an instance's otherwise). */
function readiness(run: WorkflowRun, prefix: string, step: StepDef, spills: SpillValues): Readiness {
  const id = prefix + step.id;
  const state = run.steps[id];
  if (state?.status !== 'pending') return 'wait';
  if (state.forced) return 'ready';
  const deps = step.dependsOn.map((d) => run.steps[prefix + d]?.status ?? 'pending');
  if (deps.length > 0 && deps.every((s) => s === 'pruned')) return 'prune';
  if (deps.some((s) => FAILED.has(s)) || !deps.every((s) => SATISFIED.has(s))) return 'wait';
  if (step.when === null) return 'ready';
  const compiled = compileCel(step.when);
  const held = compiled.ok ? evalPredicate(compiled.program, spillScope(run, spills, { step: id })) : compiled;
  if (!held.ok) return { whenError: held.error };
  return held.value === true ? 'ready' : 'prune';
}

/** The failed step that ended first (its error explains a failure-stall). */
function firstFailure(run: WorkflowRun): [string, StepState] | undefined {
  return Object.entries(run.steps)
    .filter(([, s]) => FAILED.has(s.status))
    .sort(([a, x], [b, y]) => (x.endedMs ?? 0) - (y.endedMs ?? 0) || a.localeCompare(b))[0];
}

/** The earliest due wait of a suspended step, or null. */
/** The suspended steps of `run` waiting on a due time (a sleep, a retry's backoff, a wait's timeout). */
export function timedWaits(run: Readonly<WorkflowRun>): Array<{ step: string; kind: string; dueMs: number }> {
  return Object.entries(run.steps).flatMap(([step, s]) =>
    s.status === 'suspended' && s.wait?.dueMs != null ? [{ step, kind: s.wait.kind, dueMs: s.wait.dueMs }] : [],
  );
}

function earliestDue(run: WorkflowRun): number | null {
  const due = Object.values(run.steps)
    .filter((s) => s.status === 'suspended' && s.wait?.dueMs != null)
    .map((s) => s.wait?.dueMs as number);
  for (const s of Object.values(run.steps)) {
    const opens = s.status === 'suspended' && s.wait?.nest ? nestOpensAt(s.wait.nest) : null;
    if (opens !== null) due.push(opens);
  }
  return due.length === 0 ? null : Math.min(...due);
}

/**
 * One scheduling decision for a live run at `now`; apply it and ask again until `idle` or `end`. `spills`: the run's
 * spilled outputs read back (stepSpill.ts `readSpills`), which `when` guards and `while`/`until` see as values.
 */
export function nextRunDecision(run: WorkflowRun, now: number, spills: SpillValues = NO_SPILLS): RunDecision {
  if (TERMINAL_RUN.has(run.status)) return { type: 'idle', wakeAt: null };
  if (run.deadlineMs !== null && now >= run.deadlineMs)
    return { type: 'end', status: 'failed', error: 'deadline exceeded', event: 'run.deadline' };
  const cap = run.definition.limits.steps;
  if (cap !== null && run.stepsRun >= cap)
    return { type: 'end', status: 'failed', error: `exhausted steps: limit ${cap}` };
  const tokens = run.definition.limits.tokens;
  if (tokens !== null && (run.tokens ?? 0) >= tokens)
    return { type: 'end', status: 'failed', error: `exhausted tokens: limits.tokens = ${tokens}` };
  const due = Object.entries(run.steps)
    .filter(
      ([, s]) =>
        s.status === 'suspended' && ((s.wait?.dueMs != null && s.wait.dueMs <= now) || signalHeld(run, s.wait)),
    )
    .map(([id]) => id);
  if (due.length > 0) return { type: 'due', steps: due };
  const ready: string[] = [];
  const prune: string[] = [];
  const scopes = [{ prefix: '', body: run.definition.steps }, ...liveInstances(run)];
  for (const { prefix, body } of scopes)
    for (const local of orderOf(body)) {
      const id = prefix + local;
      const verdict = readiness(run, prefix, body[local] as StepDef, spills);
      if (typeof verdict === 'object')
        return { type: 'end', status: 'failed', error: `step "${id}": when: ${verdict.whenError}` };
      if (verdict === 'ready') ready.push(id);
      else if (verdict === 'prune') prune.push(id);
    }
  if (prune.length > 0) return { type: 'prune', steps: prune };
  if (ready.length > 0) return { type: 'ready', steps: ready };
  // Nothing ready anywhere: a nested step whose instance finished, or with room for another, moves.
  const nests = Object.keys(run.steps).filter(
    (id) => run.steps[id]?.wait?.kind === 'nest' && nestHasWork(run, id, now),
  );
  if (nests.length > 0) return { type: 'nest', steps: nests };
  if (Object.values(run.steps).some((s) => IN_FLIGHT.has(s.status))) {
    const wake = earliestDue(run);
    return {
      type: 'idle',
      wakeAt: run.deadlineMs === null ? wake : Math.min(wake ?? Number.POSITIVE_INFINITY, run.deadlineMs),
    };
  }
  const failure = firstFailure(run);
  if (failure)
    return {
      type: 'end',
      status: 'failed',
      error: `no ready step and no finish reached — step "${failure[0]}" failed first: ${failure[1].error ?? 'failed'}`,
    };
  return { type: 'end', status: 'stalled', error: 'no ready step and no finish reached', event: 'run.stalled' };
}
