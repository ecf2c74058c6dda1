// How a run starts (producers reference §2.9), as a pure decision: which start node, whether the workflow's
// concurrency admits it, and the inputs after the schema check. The desk commits what this decides.
import type { RunParent, WorkflowDef, WorkflowRun } from '../domain/workflow.js';
import { schemaProblem } from './jsonSchema.js';
import { isStartKind } from './nodeKinds.js';

export interface StartAsk {
  workflow: string;
  /** Start node id; default: the first `manual` start by id, else the first start node by id. */
  node?: string;
  inputs?: Record<string, unknown>;
  /** Waits (queued) while a run of the same start node is live: a schedule's overlap `queue`. */
  serial?: boolean;
}

export interface StartRequest extends StartAsk {
  /** The durable key of what asked (an inbox event id, a tool call id): a replay finds the run it made. */
  startKey: string;
  principal: string | null;
  conversation: string | null;
  payload?: unknown;
  /** A child run's parent (the `workflow` step): a queued start is refused instead, the deadline inherited. */
  parent?: RunParent;
  /** A hash prefix the definition must have (the `workflow` step's `version`). */
  version?: string;
  /** The parent's deadline: the child's is never later. */
  deadlineMs?: number | null;
}

/** `queued`: waiting behind the workflow's concurrency; it starts (and ends) later under the same start key. */
export type StartOutcome =
  | { ok: true; run: Readonly<WorkflowRun>; created: boolean }
  | { ok: false; error: string; queued?: true };

export type StartPlan =
  | { type: 'start'; node: string; inputs: Record<string, unknown>; replace: string | null }
  | { type: 'queue' }
  | {
      type: 'refuse';
      event: 'start.unknown_workflow' | 'run.dropped' | 'run.inputs.invalid' | null;
      error: string;
      /** The event's `reason` (reference §4 P-11: `concurrency`); the error text otherwise. */
      reason?: 'concurrency' | 'queue_full';
    };

/** Live runs across all workflows beyond which starts wait or drop (reference §2.13 `limits.max_runs`). */
export const MAX_LIVE_RUNS = 8;
/** Starts one workflow may hold queued behind its concurrency; one more is dropped (`run.dropped`), visibly. */
export const MAX_QUEUED_STARTS = 100;

function startNode(def: WorkflowDef, asked: string | undefined): string | null {
  const starts = Object.values(def.steps)
    .filter((s) => isStartKind(s.kind))
    .sort((a, b) => a.id.localeCompare(b.id));
  if (asked !== undefined) return starts.some((s) => s.id === asked) ? asked : null;
  return (starts.find((s) => s.kind === 'manual') ?? starts[0])?.id ?? null;
}

/** Queued, unless the workflow already holds MAX_QUEUED_STARTS queued starts. */
function queueOrDrop(def: WorkflowDef, queued: number): StartPlan {
  if (queued < MAX_QUEUED_STARTS) return { type: 'queue' };
  const error = `workflow "${def.name}": run dropped (queue full: ${MAX_QUEUED_STARTS} starts wait already)`;
  return { type: 'refuse', event: 'run.dropped', error, reason: 'queue_full' };
}

/**
 * Decides a start of `ask` given the definitions, the live runs (oldest first) and how many other starts of the
 * workflow are queued already.
 */
export function planStart(
  ask: StartAsk,
  def: WorkflowDef | undefined,
  live: readonly Readonly<WorkflowRun>[],
  queued = 0,
): StartPlan {
  if (!def) return { type: 'refuse', event: 'start.unknown_workflow', error: `no such workflow "${ask.workflow}"` };
  const node = startNode(def, ask.node);
  if (node === null)
    return {
      type: 'refuse',
      event: null,
      error:
        ask.node === undefined
          ? `workflow "${def.name}" has no start node`
          : `workflow "${def.name}" has no start node "${ask.node}"`,
    };
  const mine = live.filter((r) => r.workflow === def.name);
  if (ask.serial === true && mine.some((r) => r.start.node === node)) return queueOrDrop(def, queued);
  let replace: string | null = null;
  if (mine.length >= def.concurrency.maxRuns || live.length >= MAX_LIVE_RUNS) {
    if (def.concurrency.onOverflow === 'drop')
      return {
        type: 'refuse',
        event: 'run.dropped',
        error: `workflow "${def.name}": run dropped (concurrency)`,
        reason: 'concurrency',
      };
    if (def.concurrency.onOverflow === 'queue' || mine.length === 0) return queueOrDrop(def, queued);
    replace = mine[0]?.id ?? null;
  }
  const defaults = def.steps[node]?.fields['inputs'];
  const inputs = {
    ...(defaults !== null && typeof defaults === 'object' ? (defaults as Record<string, unknown>) : {}),
    ...(ask.inputs ?? {}),
  };
  if (def.inputsSchema !== null) {
    const problem = schemaProblem(def.inputsSchema, inputs);
    if (problem !== null)
      return {
        type: 'refuse',
        event: 'run.inputs.invalid',
        error: `workflow "${def.name}": inputs do not match inputs.schema: ${problem}`,
      };
  }
  return { type: 'start', node, inputs, replace };
}
