// What an operator sees of workflow runs besides their events (producers reference §2.15; scale-out C.1's
// `agent_runs_*` scaler set, named `agentd_*` here): counters of runs and steps, the live runs gauge, the live runs
// in `status`, and the `activity` line of a step that starts or ends in a run a conversation started.
import type { LiveRunView, StepStatus, WorkflowRun } from '../domain/workflow.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import { stepDefAt } from './nesting.js';
import { type RunCounters, runMetrics } from './runMetrics.js';
import type { RunEvent } from './runState.js';

/**
 * The engine's and the desk's hooks: a run was created, one of its steps began or ended (`status` as logged, else
 * the step's status now), the run ended.
 */
export interface RunWatch {
  started(run: Readonly<WorkflowRun>): void;
  step(run: Readonly<WorkflowRun>, step: string, status?: StepStatus): void;
  ended(run: Readonly<WorkflowRun>): void;
}

/**
 * The step move a logged run event is, or null: a start, a suspend, an end (`step.done`, whichever path ended it:
 * a result, a due wait, a settled wait, the run's end), and a failed attempt going into its retry.
 */
export function stepMove(event: RunEvent): { step: string; status: StepStatus } | null {
  const step = event.fields['step'];
  if (typeof step !== 'string') return null;
  switch (event.event) {
    case 'step.start':
      return { step, status: 'running' };
    case 'wait.armed':
      return { step, status: 'suspended' };
    case 'step.retry':
      return { step, status: 'failed' };
    case 'step.done':
      return { step, status: event.fields['status'] as StepStatus };
    default:
      return null;
  }
}

const ACTIVE_STEPS: ReadonlySet<StepStatus> = new Set(['running', 'suspended']);
const ENDED_STEPS: ReadonlySet<StepStatus> = new Set(['done', 'failed', 'skipped', 'cancelled', 'timeout']);

/** The live runs as `principal` may see them (its own runs; every run without one), oldest first. */
export function liveRunViews(runs: readonly Readonly<WorkflowRun>[], principal?: string): LiveRunView[] {
  return runs
    .filter((run) => principal === undefined || run.principal === principal)
    .sort((a, b) => a.created - b.created)
    .map((run) => ({
      run: run.id,
      workflow: run.workflow,
      status: run.status,
      steps: Object.entries(run.steps)
        .filter(([, state]) => ACTIVE_STEPS.has(state.status))
        .map(([id, state]) => ({
          id,
          kind: stepDefAt(run.definition, id)?.kind ?? '',
          status: state.status,
          attempt: state.attempt,
        })),
      started_ms: run.created,
      principal: run.principal,
      conversation: run.conversation,
    }));
}

/** Counts nothing and logs nothing (tests and embedders without metrics). */
export const NO_RUN_WATCH: RunWatch = { started() {}, step() {}, ended() {} };

/** The counters and gauge registered once on the instance's metrics; `live` is read when scraped. */
export function runWatch(
  deps: { metrics?: Pick<Metrics, 'counter' | 'gauge'> | undefined; log: Logger; counters?: RunCounters | undefined },
  live: () => number,
): RunWatch {
  const { metrics, log } = deps;
  // Registered already (lazyWorkflows.ts registers them at start, before the engine loads), else here.
  const { started, ended, steps } = deps.counters ?? runMetrics(metrics, live);
  return {
    started: () => started?.inc(),
    step(run, id, status = run.steps[id]?.status) {
      const state = run.steps[id];
      // A pruned step never ran: neither an attempt nor activity.
      if (!state || status === undefined || status === 'pruned') return;
      if (ENDED_STEPS.has(status)) steps?.inc({ status });
      // A run a turn started: its conversation's watchers see the step move (reference §15's activity line).
      if (run.conversation === null) return;
      const kind = stepDefAt(run.definition, id)?.kind ?? '';
      const at = { ctx: run.conversation, run: run.id, workflow: run.workflow };
      log.info('activity', { ...at, step: id, kind, status, attempt: state.attempt });
    },
    ended: (run) => ended?.inc({ status: run.status }),
  };
}
