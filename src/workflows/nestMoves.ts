// How a nested step moves (producers reference §2.8 Nested): open instances up to its window, settle finished ones
// into its progress (their scoped steps dropped), and decide its result once none is left. Pure: the run is mutated
// in place (owned by the engine); the step's result is returned for the caller to apply as the wait's end.
import type { NestProgress, StepDef, StepState, WorkflowRun } from '../domain/workflow.js';
import { compileCel, evalPredicate } from '../expr/cel.js';
import { instanceBody, instanceId, stepDefAt } from './nesting.js';
import { done, failed, type StepResult } from './nodeKind.js';
import { type Reducer, reduceVar } from './reducers.js';
import { expandValue, NO_SPILLS, type SpillValues, spillScope } from './stepSpill.js';

export interface NestEvent {
  event: string;
  fields: Record<string, unknown>;
}

export interface NestMove {
  events: NestEvent[];
  /** The nested step's result once it is decided (the caller settles its wait with it). */
  result?: StepResult;
}

const IN_FLIGHT = new Set(['running', 'suspended']);
const FAILED = new Set(['failed', 'cancelled', 'timeout']);

/** A step state not begun yet. */
export const blankStep = (): StepState => ({
  status: 'pending',
  attempt: 0,
  output: null,
  error: null,
  forced: false,
  wait: null,
  startedMs: null,
  endedMs: null,
});

const under = (run: WorkflowRun, prefix: string): string[] =>
  Object.keys(run.steps).filter((k) => k.startsWith(prefix));

/** Drops the scoped steps under `prefix`; those in flight are logged cancelled (their executions are aborted). */
export function dropScoped(run: WorkflowRun, prefix: string): NestEvent[] {
  const events: NestEvent[] = [];
  for (const id of under(run, prefix)) {
    const state = run.steps[id] as StepState;
    if (IN_FLIGHT.has(state.status))
      events.push({
        event: 'step.done',
        fields: { run: run.id, step: id, status: 'cancelled', attempt: state.attempt, err: null },
      });
    delete run.steps[id];
  }
  return events;
}

/** Every scoped step of nested step `id` is dropped (its retry, timeout or the run's cancel). */
export function dropNest(run: WorkflowRun, id: string): NestEvent[] {
  return [...dropScoped(run, `${id}[`), ...dropScoped(run, `${id}{`), ...dropScoped(run, `${id}.`)];
}

/** An instance's end once none of its steps is in flight (the caller knows none is ready): output or error. */
function outcome(
  run: WorkflowRun,
  prefix: string,
  body: Readonly<Record<string, StepDef>>,
): { ok: true; output: unknown } | { ok: false; error: string } | null {
  if (under(run, prefix).some((k) => IN_FLIGHT.has(run.steps[k]?.status ?? ''))) return null;
  const failure = Object.keys(body)
    .map((id) => [id, run.steps[prefix + id]] as const)
    .filter(([, s]) => s !== undefined && FAILED.has(s.status))
    .sort(([a, x], [b, y]) => (x?.endedMs ?? 0) - (y?.endedMs ?? 0) || a.localeCompare(b))[0];
  if (failure) return { ok: false, error: `step "${failure[0]}" failed: ${failure[1]?.error ?? failure[1]?.status}` };
  const fed = new Set(Object.values(body).flatMap((s) => s.dependsOn));
  const sinks = Object.keys(body).filter((id) => !fed.has(id));
  const out = (id: string): unknown => run.steps[prefix + id]?.output ?? null;
  if (sinks.length === 1) return { ok: true, output: out(sinks[0] as string) };
  return { ok: true, output: Object.fromEntries(sinks.map((id) => [id, out(id)])) };
}

function label(nest: NestProgress, index: number): string {
  return nest.labels?.[index] ?? String(index);
}

/** A CEL predicate (`while`/`until`) over the run scope plus `extra`; an error is a failure text. */
function predicate(
  source: unknown,
  scope: Record<string, unknown>,
): { ok: true; value: boolean } | { ok: false; error: string } {
  const compiled = compileCel(String(source));
  if (!compiled.ok) return compiled;
  const held = evalPredicate(compiled.program, scope);
  return held.ok ? { ok: true, value: held.value === true } : held;
}

function collected(run: WorkflowRun, parent: StepDef, value: unknown): StepResult {
  const collect = parent.fields['collect'];
  if (collect === null || typeof collect !== 'object') return done(value);
  const { into, mode } = collect as { into?: unknown; mode?: unknown };
  if (typeof into !== 'string') return done(value);
  const reduced = reduceVar(run.vars[into], value, (mode as Reducer | undefined) ?? 'overwrite');
  return { type: 'done', output: value, setVar: { name: into, value: reduced } };
}

/** The nested step's result once every instance settled. */
function finalResult(run: WorkflowRun, parent: StepDef, nest: NestProgress): StepResult {
  switch (parent.kind) {
    case 'parallel': {
      const out: Record<string, unknown> = {};
      for (const [i, name] of (nest.labels ?? []).entries()) out[name] = nest.results[i] ?? null;
      out['_errors'] = Object.fromEntries(nest.errors.map((e) => [label(nest, e.index), e.error]));
      return done(out);
    }
    case 'race':
      return failed(
        `race: every branch failed: ${nest.errors.map((e) => `${label(nest, e.index)}: ${e.error}`).join('; ')}`,
      );
    case 'subgraph':
      return done(nest.results[0] ?? null);
    case 'iterate': {
      const all = nest.results.slice(0, nest.next);
      return parent.fields['collect'] !== undefined ? collected(run, parent, all) : done(all[all.length - 1] ?? null);
    }
    default:
      return collected(
        run,
        parent,
        Array.from({ length: nest.total ?? 0 }, (_, i) => nest.results[i] ?? null),
      );
  }
}

/** A race branch succeeded: the race is won once `min_success` did (reference §2.8 race; `min_success` beyond it). */
function raceWon(nest: NestProgress, index: number): StepResult | undefined {
  const won = [...(nest.won ?? []), index];
  nest.won = won;
  const need = nest.need ?? 1;
  if (won.length < need) return undefined;
  const first = won[0] as number;
  const head = { winner: label(nest, first), output: nest.results[first] ?? null };
  if (need === 1) return done(head);
  const outputs = Object.fromEntries(won.map((i) => [label(nest, i), nest.results[i] ?? null]));
  return done({ ...head, winners: won.map((i) => label(nest, i)), outputs });
}

/** A race branch failed: with `min_success` above 1, the race fails as soon as too few branches are left. */
function raceLost(nest: NestProgress): StepResult | undefined {
  const need = nest.need ?? 1;
  if (need === 1 || (nest.total ?? 0) - nest.errors.length >= need) return undefined;
  const errors = nest.errors.map((e) => `${label(nest, e.index)}: ${e.error}`).join('; ');
  return failed(
    `race: min_success ${need} cannot be reached (${nest.errors.length} of ${nest.total} failed): ${errors}`,
  );
}

/** Records instance `index`'s end; a result when that decides the step (a failure under `fail`, a race's winner). */
function settle(
  run: WorkflowRun,
  id: string,
  parent: StepDef,
  nest: NestProgress,
  index: number,
  end: { ok: true; output: unknown } | { ok: false; error: string },
  spills: SpillValues,
): StepResult | undefined {
  nest.open = nest.open.filter((i) => i !== index);
  if (end.ok) {
    nest.results[index] = end.output ?? null;
    if (parent.kind === 'race') return raceWon(nest, index);
    if (parent.kind === 'subgraph') return done(end.output ?? null);
    if (parent.kind === 'iterate' && parent.fields['until'] !== undefined) {
      const result = expandValue(end.output ?? null, spills);
      const scope = { ...spillScope(run, spills, { step: id }), iteration: index, result };
      const until = predicate(parent.fields['until'], scope);
      if (!until.ok) return failed(`iterate: until: ${until.error}`);
      if (until.value) nest.total = index + 1;
    }
    return undefined;
  }
  nest.errors.push({ index, error: end.error });
  if (parent.kind === 'race') return raceLost(nest);
  if (parent.kind === 'subgraph') return failed(end.error);
  const what = parent.kind === 'parallel' ? 'branch' : parent.kind === 'iterate' ? 'iteration' : 'element';
  if (parent.onError.kind === 'fail') return failed(`${what} ${label(nest, index)} failed: ${end.error}`);
  nest.results[index] = parent.kind === 'parallel' ? null : { index, error: end.error };
  return undefined;
}

/** Opens instance `index`: its body's steps pending under its prefix. */
function open(run: WorkflowRun, id: string, parent: StepDef, nest: NestProgress, index: number): NestEvent {
  const prefix = instanceId(parent, id, nest, index);
  for (const step of Object.keys(instanceBody(parent, nest, index))) run.steps[`${prefix}.${step}`] = blankStep();
  nest.open.push(index);
  nest.next = index + 1;
  return { event: 'step.instance', fields: { run: run.id, step: id, instance: prefix } };
}

/** Whether iterate may open iteration `index` (`while`, `max_iterations`); else its total is fixed there. */
function mayIterate(
  run: WorkflowRun,
  id: string,
  parent: StepDef,
  nest: NestProgress,
  spills: SpillValues,
): StepResult | boolean {
  if (parent.fields['while'] === undefined) return true;
  const index = nest.next;
  const previous = expandValue(nest.results[index - 1] ?? null, spills);
  const scope = { ...spillScope(run, spills, { step: id }), iteration: index, previous };
  const held = predicate(parent.fields['while'], scope);
  if (!held.ok) return failed(`iterate: while: ${held.error}`);
  return held.value;
}

/** When a batch held back by its `rate` may start its next instance, or null when nothing is held back. */
export function nestOpensAt(nest: Readonly<NestProgress>): number | null {
  const more = nest.total === null || nest.next < nest.total;
  return more && nest.spacingMs !== undefined && nest.open.length < nest.window ? (nest.nextAt ?? 0) : null;
}

/** True when nested step `id` can move at `now` (the caller knows no step of the run is ready or to prune). */
export function nestHasWork(run: Readonly<WorkflowRun>, id: string, now: number): boolean {
  const nest = run.steps[id]?.wait?.nest;
  const parent = stepDefAt(run.definition, id);
  if (nest === undefined || parent === undefined) return false;
  const more = nest.total === null || nest.next < nest.total;
  const held = (nestOpensAt(nest) ?? 0) > now;
  if ((nest.open.length === 0 && !held) || (more && nest.open.length < nest.window && !held)) return true;
  return nest.open.some((i) => {
    const prefix = `${instanceId(parent, id, nest, i)}.`;
    return !Object.keys(run.steps).some((k) => k.startsWith(prefix) && IN_FLIGHT.has(run.steps[k]?.status ?? ''));
  });
}

/** One move of nested step `id`: settle finished instances, open new ones, or decide its result (`spills`: as the scheduler's). */
export function advanceNest(run: WorkflowRun, id: string, now: number, spills: SpillValues = NO_SPILLS): NestMove {
  const nest = run.steps[id]?.wait?.nest;
  const parent = stepDefAt(run.definition, id);
  if (nest === undefined || parent === undefined) return { events: [] };
  const events: NestEvent[] = [];
  for (const index of [...nest.open].sort((a, b) => a - b)) {
    const prefix = `${instanceId(parent, id, nest, index)}.`;
    const end = outcome(run, prefix, instanceBody(parent, nest, index));
    if (end === null) continue;
    events.push(...dropScoped(run, prefix));
    const result = settle(run, id, parent, nest, index, end, spills);
    if (result) return { events: [...events, ...dropNest(run, id)], result };
  }
  while (nest.open.length < nest.window && (nest.total === null || nest.next < nest.total)) {
    if (parent.kind === 'iterate') {
      const may = mayIterate(run, id, parent, nest, spills);
      if (typeof may === 'object') return { events: [...events, ...dropNest(run, id)], result: may };
      if (!may) {
        nest.total = nest.next;
        break;
      }
    }
    // `batch.rate`: starts spaced by period / burst (reference §2.8), the next start's time saved with the run.
    if (nest.spacingMs !== undefined) {
      if ((nest.nextAt ?? 0) > now) return { events };
      nest.nextAt = now + nest.spacingMs;
    }
    events.push(open(run, id, parent, nest, nest.next));
  }
  if (nest.open.length > 0) return { events };
  return { events, result: finalResult(run, parent, nest) };
}
