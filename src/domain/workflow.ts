// Workflow definitions and runs as plain data (producers reference §2.2, §2.10): what the store keeps and the
// scheduler reads. No behaviour here.

/** What a step does once its retries are spent (reference §2.7 item 8). */
export type OnError = { kind: 'fail' } | { kind: 'continue' } | { kind: 'goto'; target: string };

/** One step as loaded: the common fields parsed, the kind's own fields kept as written (rendered at execution). */
export interface StepDef {
  id: string;
  kind: string;
  dependsOn: string[];
  /** CEL source of the `when` guard (compiled at load, so known to parse). */
  when: string | null;
  retry: { max: number; backoffMs: number };
  timeoutMs: number | null;
  onError: OnError;
  onReplay: 'retry' | 'skip' | 'fail';
  description: string | null;
  /** JSON Schema a `done` output must match (reference §2.7 item 6). */
  outputSchema: Record<string, unknown> | null;
  /** The kind's own fields, unrendered. */
  fields: Record<string, unknown>;
  /** A nested kind's body (`body`), parsed at load: steps of one instance (reference §2.8 Nested). */
  body?: Record<string, StepDef>;
  /** `parallel` / `race`: each branch's steps, parsed at load. */
  branches?: Record<string, Record<string, StepDef>>;
  /** The common `cache` field (reference §2.7 item 4); absent: no cache. */
  cache?: StepCache;
}

/** A step's cache: `key` (a template, null = the whole rendered spec) and its time to live (null = forever). */
export interface StepCache {
  key: unknown;
  ttlMs: number | null;
}

export type OverflowPolicy = 'queue' | 'drop' | 'replace';

/** A loaded, validated dialect-3 workflow. `hash` is SHA-256 over its canonical JSON (reference §2.2). */
export interface WorkflowDef {
  name: string;
  description: string;
  armed: boolean;
  inputsSchema: Record<string, unknown> | null;
  outputsSchema: Record<string, unknown> | null;
  concurrency: { maxRuns: number; onOverflow: OverflowPolicy };
  limits: { steps: number | null; tokens: number | null; deadlineMs: number | null };
  priority: 'low' | 'normal' | 'high';
  steps: Record<string, StepDef>;
  hash: string;
}

/** Step statuses (reference §2.10). */
export type StepStatus =
  | 'pending'
  | 'running'
  | 'done'
  | 'failed'
  | 'skipped'
  | 'pruned'
  | 'cancelled'
  | 'timeout'
  | 'suspended';

/** Why a suspended step waits, with the wall-clock time it is due (re-armed from the store at start). */
export interface StepWait {
  /** `sleep`, `retry_backoff`: a due time; the others are a `wait` step's (`deadline` = `on: deadline`). */
  kind:
    | 'sleep'
    | 'retry_backoff'
    | 'run'
    | 'signal'
    | 'subagent'
    | 'deadline'
    | 'resource'
    | 'nest'
    | 'join'
    | 'condition'
    | 'message'
    | 'webhook';
  /** When it is due (a `wait` step's timeout or `until`), else null. */
  dueMs: number | null;
  /** `run`: the run waited on. */
  run?: string;
  /** `signal`: the signal name waited for; `message` / `webhook`: the run-private channel a delivery is held on. */
  signal?: string;
  /** `condition`: the CEL predicate (re-checked as memory it names or signals change). */
  condition?: string;
  /** `message`: the conversation (or A2A contextId) a message must arrive on; empty: any. */
  conversation?: string;
  /** `webhook`: the one-off callback route's path, and its auth (`none`, or a bearer token / header it needs). */
  path?: string;
  auth?: Record<string, unknown>;
  /** `webhook`: the methods the callback route accepts (upper case); absent: POST. */
  methods?: string[];
  /** `subagent`: the handle waited on. */
  handle?: string;
  /** `resource`: the MCP server and resource URI whose next update ends the wait. */
  server?: string;
  uri?: string;
  /** When a `wait` step began waiting (its output's `waited_ms`). */
  sinceMs?: number;
  error?: string;
  /** `nest`: a nested kind's progress over its body instances. */
  nest?: NestProgress;
  /** `run`: a child run this step started (`workflow` kind), cancelled with the run unless `cascade` is false. */
  child?: boolean;
  /** `join`: the handles, how many must end, whether a timeout yields partial results, its wall-clock end. */
  join?: { handles: string[]; min: number; partials: boolean; untilMs: number | null };
}

/**
 * A nested step's progress (reference §2.8): its instances (foreach elements, batches, iterations, branches, the one
 * subgraph body) by index, which are open (their scoped steps live in the run as `<parent>[<i>].<step>`,
 * `<parent>{<branch>}.<step>` or `<parent>.<step>`), and what finished ones gave. Finished instances' scoped steps are
 * dropped: their results here are what survives, so a restart never re-runs them.
 */
export interface NestProgress {
  /** What one instance sees as `item`: foreach items, batch groups; absent for iterate/branches/subgraph. */
  items?: unknown[];
  /** Branch names (parallel, race), by instance index. */
  labels?: string[];
  /** Instances in all; null while unknown (iterate: until `while`/`until` stop it or `max_iterations`). */
  total: number | null;
  /** Next instance index to open. */
  next: number;
  open: number[];
  /** How many instances may be open at once. */
  window: number;
  /** Finished instances' results, by index (holes null). */
  results: unknown[];
  /** Finished instances that failed, with their error. */
  errors: Array<{ index: number; error: string }>;
  /** `race`: branches that succeeded, in the order they did, and how many must (`min_success`, default 1). */
  won?: number[];
  need?: number;
  /** `batch.rate`: the least time between two batch starts, and when the next may start (epoch ms). */
  spacingMs?: number;
  nextAt?: number;
}

export interface StepState {
  status: StepStatus;
  attempt: number;
  output: unknown;
  error: string | null;
  /** A goto target or chosen switch case: ready whatever its deps. */
  forced: boolean;
  wait: StepWait | null;
  startedMs: number | null;
  endedMs: number | null;
  /**
   * Attempts a restart interrupted (reference §2.11): an effect keyed per attempt subtracts them, so the replay
   * finds what the interrupted attempt started (a subagent step's child) instead of starting it twice.
   */
  replays?: number;
}

export type RunStatus = 'running' | 'paused' | 'completed' | 'failed' | 'refused' | 'cancelled' | 'stalled';

export const TERMINAL_RUN: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'refused', 'cancelled', 'stalled']);

/** The `workflow` step a child run was started by. */
export interface RunParent {
  run: string;
  step: string;
  cascade: boolean;
  sync?: boolean;
}

/** One durable run, pinned to the definition it started with. */
export interface WorkflowRun {
  id: string;
  workflow: string;
  /** The definition this run executes (pinned: editing the workflow never changes a live run). */
  definition: WorkflowDef;
  status: RunStatus;
  /** The durable event (or key) that started it: a replayed start finds this run instead of making another. */
  startKey: string;
  start: { node: string; payload: unknown; ts: number };
  inputs: Record<string, unknown>;
  vars: Record<string, unknown>;
  steps: Record<string, StepState>;
  principal: string | null;
  /** The conversation that started it (a turn's `workflow.run`): its wake note goes there. */
  conversation: string | null;
  deadlineMs: number | null;
  stepsRun: number;
  /** Tokens its steps spent (subagent steps, as their usage arrives); bounded by `limits.tokens` (reference §2.6). */
  tokens?: number;
  /**
   * The run and step that started this run (`workflow` step); `cascade`: cancelled with its parent; `sync`: the step
   * waits for its end (its `mode` as rendered; absent in records from before it was kept: read the definition).
   */
  parent?: RunParent;
  /** Signals sent to this run that no waiter took yet, oldest first, bounded (producers reference §5 item 8). */
  signals?: BufferedSignal[];
  /**
   * Message and webhook deliveries held for this run's waiting steps, one per waiting step's channel: apart from
   * `signals`, so neither can drop the other (records from before it was kept hold them in `signals`).
   */
  held?: BufferedSignal[];
  /**
   * Artifact ids of this run's spilled outputs (stepSpill.ts), recorded as each is applied: only a reference to one
   * of these is read back into a scope, never a value that merely has a reference's shape.
   */
  spills?: string[];
  output: unknown;
  error: string | null;
  created: number;
  updated: number;
  finished: number | null;
}

/** A signal held for a run until a waiter takes it; `key` makes a replayed send buffer nothing twice. */
export interface BufferedSignal {
  name: string;
  payload: unknown;
  key: string;
  at: number;
  /** Who sent it: `run:<id>/<step>` (a step), `conversation:<id>` (a turn's tool call), `a2a:<principal>`. */
  from?: string | null;
}

/** A definition created at run time (`workflow.create` / `update` / `delete`), one row per version. */
export interface StoredDefinition {
  name: string;
  version: number;
  /** The document as given (re-validated at load). Null: deleted at this version. */
  document: Record<string, unknown> | null;
  hash: string | null;
  created: number;
}

/** A live run as `status` shows it: the steps running (or waiting) now (producers reference §2.15). */
export interface LiveRunView {
  run: string;
  workflow: string;
  status: RunStatus;
  steps: { id: string; kind: string; status: StepStatus; attempt: number }[];
  started_ms: number;
  principal: string | null;
  conversation: string | null;
}
