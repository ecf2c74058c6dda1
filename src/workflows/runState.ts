// Transitions of a run record (producers reference §2.7, §2.9, §2.10): each takes the run (mutated in place, owned
// by the engine) and the clock, and returns the events to log. Pure: no I/O.
import type { StepDef, StepState, StepWait, WorkflowDef, WorkflowRun } from '../domain/workflow.js';
import { redact } from '../obs/log.js';
import { schemaProblem } from './jsonSchema.js';
import { dueWaitResult } from './kinds/waitKind.js';
import { siblingPrefix, stepDefAt } from './nesting.js';
import { blankStep, dropNest } from './nestMoves.js';
import type { StepResult } from './nodeKind.js';
import { isStartKind } from './nodeKinds.js';
import { retryDelayMs } from './retryBackoff.js';

export interface RunEvent {
  event: string;
  level?: 'info' | 'warn' | 'debug';
  fields: Record<string, unknown>;
}

export interface RunOrigin {
  id: string;
  startKey: string;
  node: string;
  payload: unknown;
  inputs: Record<string, unknown>;
  principal: string | null;
  conversation: string | null;
}

/** A new run: the fired start `done` (output = payload), sibling starts `skipped`, the rest pending. */
export function newRun(def: WorkflowDef, origin: RunOrigin, now: number): WorkflowRun {
  const steps: Record<string, StepState> = {};
  for (const step of Object.values(def.steps)) {
    const state = blankStep();
    if (step.id === origin.node)
      Object.assign(state, { status: 'done', attempt: 1, output: origin.payload ?? null, endedMs: now });
    else if (isStartKind(step.kind)) Object.assign(state, { status: 'skipped', endedMs: now });
    steps[step.id] = state;
  }
  return {
    id: origin.id,
    workflow: def.name,
    definition: def,
    status: 'running',
    startKey: origin.startKey,
    start: { node: origin.node, payload: origin.payload ?? null, ts: now },
    inputs: origin.inputs,
    vars: {},
    steps,
    principal: origin.principal,
    conversation: origin.conversation,
    deadlineMs: def.limits.deadlineMs === null ? null : now + def.limits.deadlineMs,
    stepsRun: 0,
    output: null,
    error: null,
    created: now,
    updated: now,
    finished: null,
  };
}

function stateOf(run: WorkflowRun, id: string): StepState {
  const state = run.steps[id];
  if (!state) throw new Error(`run ${run.id} has no step "${id}"`);
  return state;
}

/** `running`, attempt + 1; committed before the effect (reference §2.7 items 1-2). */
export function beginStep(run: WorkflowRun, id: string, now: number): RunEvent[] {
  const state = stateOf(run, id);
  Object.assign(state, {
    status: 'running',
    attempt: state.attempt + 1,
    error: null,
    wait: null,
    forced: false,
    startedMs: now,
  });
  run.updated = now;
  const kind = stepDefAt(run.definition, id)?.kind;
  return [{ event: 'step.start', fields: { run: run.id, step: id, kind, attempt: state.attempt } }];
}

function ended(run: WorkflowRun, id: string, state: StepState, now: number): RunEvent {
  state.endedMs = now;
  run.stepsRun += 1;
  run.updated = now;
  return {
    event: 'step.done',
    fields: { run: run.id, step: id, status: state.status, attempt: state.attempt, err: state.error },
  };
}

/** Marks steps pruned (a false `when`, dead branches, switch targets not taken). */
export function pruneSteps(run: WorkflowRun, ids: readonly string[], now: number): RunEvent[] {
  return ids.map((id) => {
    const state = stateOf(run, id);
    state.status = 'pruned';
    return ended(run, id, state, now);
  });
}

/** Ends the run; steps still in flight are marked cancelled (reference §2.10). */
export function endRun(
  run: WorkflowRun,
  status: WorkflowRun['status'],
  error: string | null,
  output: unknown,
  now: number,
): RunEvent[] {
  const events: RunEvent[] = [];
  for (const [id, state] of Object.entries(run.steps))
    if (state.status === 'running' || state.status === 'suspended' || (state.status === 'pending' && state.forced)) {
      Object.assign(state, { status: 'cancelled', wait: null });
      // Logged like any step end, so the steps counter and the activity line see it (reference §2.15).
      const fields = { run: run.id, step: id, status: 'cancelled', attempt: state.attempt, err: null };
      events.push({ event: 'step.done', fields });
    }
  // A run's error (a finish reason, a `when` error, a step's failure) is stored redacted.
  const text = error === null ? null : redact(error);
  Object.assign(run, { status, error: text, output: output ?? null, finished: now, updated: now });
  events.push({ event: 'run.done', fields: { run: run.id, workflow: run.workflow, status, err: text } });
  return events;
}

/** Due waits: a slept step is done, a retry backoff goes back to pending, a `wait` step's wait ends. */
export function resolveDue(run: WorkflowRun, ids: readonly string[], now: number): RunEvent[] {
  return ids.flatMap((id) => {
    const state = stateOf(run, id);
    const wait = state.wait;
    if (wait?.kind === 'nest') {
      // A nested step past its timeout: its instances are cancelled (reference §2.8: race's own text).
      const kind = stepDefAt(run.definition, id)?.kind;
      const error = kind === 'race' ? raceTimeout(wait.nest) : 'nested step timed out';
      return [...dropNest(run, id), ...settleWait(run, id, { type: 'failed', error, timeout: true }, now)];
    }
    if (wait !== null && wait.kind !== 'sleep' && wait.kind !== 'retry_backoff')
      return settleWait(run, id, dueWaitResult(run, wait, now), now);
    state.wait = null;
    if (wait?.kind === 'retry_backoff') {
      state.status = 'pending';
      return [];
    }
    state.status = 'done';
    state.output = { slept_ms: now - (state.startedMs ?? now) };
    return [ended(run, id, state, now)];
  });
}

/** A race past its timeout: none finished, or (with `min_success`) too few. */
function raceTimeout(nest: StepWait['nest']): string {
  const won = nest?.won?.length ?? 0;
  const need = nest?.need ?? 1;
  return need === 1 || won === 0
    ? 'race: no branch finished in time'
    : `race: ${won} of min_success ${need} branches succeeded in time`;
}

/**
 * Ends a suspended `wait` step with `result` (what it waited for came, or its time did): applied as the step's
 * result, so retries and `on_error` hold as for any step. Nothing when the step no longer waits.
 */
export function settleWait(run: WorkflowRun, id: string, result: StepResult, now: number): RunEvent[] {
  const state = stateOf(run, id);
  const on = state.wait?.kind;
  if (state.status !== 'suspended' || on === undefined) return [];
  Object.assign(state, { status: 'running', wait: null });
  const events = applyResult(run, id, result, now);
  return [{ event: 'wait.resolved', fields: { run: run.id, step: id, on, status: state.status } }, ...events];
}

function failStep(
  run: WorkflowRun,
  step: StepDef,
  state: StepState,
  raw: string,
  timeout: boolean,
  now: number,
): RunEvent[] {
  // Every step error is stored here, whatever built it (a kind, a spill, an output_schema check): redacted once.
  const error = redact(raw);
  state.error = error;
  if (state.attempt <= step.retry.max) {
    const backoff = retryDelayMs(step.retry.backoffMs, state.attempt, run.id, step.id);
    const retry: RunEvent = {
      event: 'step.retry',
      fields: { run: run.id, step: step.id, attempt: state.attempt, backoff_ms: backoff },
    };
    if (backoff === 0) state.status = 'pending';
    else Object.assign(state, { status: 'suspended', wait: { kind: 'retry_backoff', dueMs: now + backoff, error } });
    run.updated = now;
    return [retry];
  }
  state.status = timeout ? 'timeout' : 'failed';
  const events = [ended(run, step.id, state, now)];
  if (step.onError.kind === 'continue') {
    state.status = 'done';
    state.output ??= { error };
  } else if (step.onError.kind === 'goto') {
    const to = siblingPrefix(step.id) + step.onError.target;
    Object.assign(stateOf(run, to), { status: 'pending', forced: true });
    events.push({ event: 'step.goto', fields: { run: run.id, from: step.id, to } });
  } else if (siblingPrefix(step.id) === '')
    events.push(...endRun(run, 'failed', `step "${step.id}" failed: ${error}`, null, now));
  // A body step under `fail` leaves its instance failed; the nested step decides (reference §2.7 item 8).
  return events;
}

/** Applies what a step's execution decided (reference §2.7 items 5-8). */
export function applyResult(run: WorkflowRun, id: string, result: StepResult, now: number): RunEvent[] {
  const step = stepDefAt(run.definition, id);
  const state = stateOf(run, id);
  if (!step || state.status !== 'running') return [];
  switch (result.type) {
    case 'failed':
      return failStep(run, step, state, result.error, result.timeout === true, now);
    case 'suspend':
      Object.assign(state, { status: 'suspended', wait: result.wait });
      if (result.setVar) run.vars[result.setVar.name] = result.setVar.value;
      run.updated = now;
      return [
        { event: 'wait.armed', fields: { run: run.id, step: id, on: result.wait.kind, due_ms: result.wait.dueMs } },
      ];
    case 'finish':
      return finishRun(run, step, state, result, now);
    case 'switch': {
      const at = siblingPrefix(id);
      for (const target of result.prune)
        if (run.steps[at + target]?.status === 'pending') stateOf(run, at + target).status = 'pruned';
      Object.assign(stateOf(run, at + result.goto), { forced: true });
      break;
    }
    case 'done':
      // A spilled output was checked before it was spilled (stepSpill.ts): the record holds only its reference.
      if (step.outputSchema !== null && !result.spilled) {
        const problem = schemaProblem(step.outputSchema, result.output);
        if (problem !== null)
          return failStep(run, step, state, `output does not match output_schema: ${problem}`, false, now);
      }
      if (result.setVar) run.vars[result.setVar.name] = result.setVar.value;
  }
  state.status = 'done';
  state.output = result.output ?? null;
  if (result.type === 'done' && result.spilled) {
    if (!run.spills?.includes(result.spilled.id)) run.spills = [...(run.spills ?? []), result.spilled.id];
    return [
      {
        event: 'step.output.artifact',
        fields: { run: run.id, step: id, artifact: result.spilled.id, size: result.spilled.size },
      },
      ended(run, id, state, now),
    ];
  }
  if (result.type === 'done' && result.cached)
    return [
      { event: 'step.cache_hit', fields: { run: run.id, step: id, key: result.cached } },
      ended(run, id, state, now),
    ];
  return [ended(run, id, state, now)];
}

function finishRun(
  run: WorkflowRun,
  step: StepDef,
  state: StepState,
  result: Extract<StepResult, { type: 'finish' }>,
  now: number,
): RunEvent[] {
  if (result.status === 'completed' && run.definition.outputsSchema !== null) {
    const problem = schemaProblem(run.definition.outputsSchema, result.output);
    if (problem !== null)
      return failStep(
        run,
        step,
        state,
        `finish: output does not match the workflow's declared outputs.schema: ${problem}`,
        false,
        now,
      );
  }
  state.status = 'done';
  state.output = result.output ?? null;
  const events = [ended(run, step.id, state, now)];
  return [
    ...events,
    ...endRun(
      run,
      result.status,
      result.status === 'completed' ? null : (result.reason ?? `finished ${result.status}`),
      result.output,
      now,
    ),
  ];
}

/**
 * After a restart: every `running` step goes back to pending (`restore.step.replay`) unless its `on_replay` says
 * skip or fail (reference §2.11).
 */
export function replayInFlight(run: WorkflowRun, now: number): RunEvent[] {
  const events: RunEvent[] = [];
  for (const [id, state] of Object.entries(run.steps)) {
    if (state.status !== 'running') continue;
    const policy = run.definition.steps[id]?.onReplay ?? 'retry';
    const fields = { run: run.id, step: id, attempt: state.attempt };
    if (policy === 'skip') {
      state.status = 'skipped';
      events.push({ event: 'restore.step.skipped', fields }, ended(run, id, state, now));
    } else if (policy === 'fail') {
      state.status = 'failed';
      state.error = 'step was in flight when the process died and its on_replay policy is `fail`';
      events.push({ event: 'restore.step.failed', fields }, ended(run, id, state, now));
    } else {
      state.status = 'pending';
      state.replays = (state.replays ?? 0) + 1;
      events.push({ event: 'restore.step.replay', fields });
    }
  }
  return events;
}
