// What one node kind is (producers reference §2.4, §2.8): its fields, its doc text and its behaviour, defined once.
// The registry (nodeKinds.ts) lists them; validation, execution and docs/reference/workflow-nodes.md read it.
import type { StepTurnOptions } from '../domain/inbox.js';
import type { RunParent, StepDef, StepWait, WorkflowRun } from '../domain/workflow.js';
import type { MemoryPort } from '../store/store.js';

export type KindCategory = 'start' | 'control' | 'data' | 'integration' | 'intelligence';

export interface FieldSpec {
  required?: boolean;
  doc: string;
  /** Never pre-rendered: the kind evaluates it itself (CEL over per-item scope). */
  raw?: boolean;
}

/** What a step's execution decided; the engine only switches on it. */
export type StepResult =
  | {
      type: 'done';
      output: unknown;
      setVar?: { name: string; value: unknown };
      cached?: string;
      /** The output was over `limits.inline_max_bytes`: kept as this artifact, `output` is its reference. */
      spilled?: { id: string; size: number };
    }
  | { type: 'failed'; error: string; timeout?: boolean }
  | { type: 'suspend'; wait: StepWait; setVar?: { name: string; value: unknown } }
  | { type: 'finish'; status: 'completed' | 'failed' | 'refused' | 'cancelled'; output: unknown; reason: string | null }
  | { type: 'switch'; output: unknown; goto: string; prune: string[] };

/** The effects a kind may reach, passed in so kinds stay testable without the engine. */
export interface StepPorts {
  memory: MemoryPort;
  /** Outbound HTTP for the `http` kind (fetch, guarded by the kind). */
  fetch: typeof fetch;
  /** Resolves a host name to its addresses (the private-address refusal checks every one). */
  lookup(host: string): Promise<string[]>;
  /** Calls `tool` on the configured MCP server `server` (the supervisor's connection); never throws. */
  mcp?: McpCaller;
  /**
   * Counts `tokens` a step of run `run` spent (its turn's) against the run's `limits.tokens`, saved before the step's
   * end is applied: past the cap the run fails (reference §2.6). The desk fills it in.
   */
  spend?(run: string, tokens: number): Promise<unknown>;
  /** Starts a child run (the `workflow` step) through the desk, keyed so a replayed step finds the same run. */
  startRun?(req: StepRunStart): Promise<{ ok: true; run: string } | { ok: false; error: string }>;
  /** `limits.workflow.fan_out`: the most instances of one nested step open at once (default 8). */
  fanOut?: number;
  /** `agent.name`, sent as `agent/instance` in an MCP call's `_meta`. */
  instance?: string;
  /** Runs one turn on a fresh conversation through the inbox (accept keyed by `key`) and resolves with its end. */
  turn?(req: StepTurnRequest): Promise<StepTurnEnd>;
  /** message.send's delivery (turn reference §3.2): durable once it resolves; keyed by `key`. */
  deliver?(
    req: StepDelivery,
  ): Promise<{ ok: true; conversation: string; depth: number } | { ok: false; error: string }>;
  /** Runs a subagent through the supervisor's desk (the `subagent` step); a sync one resolves at its end. */
  subagent?(req: StepSubagentRequest): Promise<StepSubagentEnd>;
  /** Resolves once subagent `handle` ends (as subagent.await, acting for the run); a `wait on: subagent` step's. */
  awaitSubagent?(req: StepSubagentAwait): Promise<StepSubagentEnd>;
  /** Calls the MCP tool that answers `tool` (tools.overrides, else knowledge.server); null: none is configured. */
  knowledge?(
    tool: 'knowledge.search' | 'knowledge.get',
    args: Record<string, unknown>,
    call: { timeoutMs: number; signal: AbortSignal },
  ): Promise<{ result: unknown; is_error: boolean } | null>;
  /** Asks a person (the `human` step) through the A2A question machinery; resolves with the answer. */
  askPerson?(req: StepHumanAsk): Promise<StepHumanEnd>;
  /** Other runs, as the `workflow.signal` / `workflow.cancel` steps reach them (the desk fills it in). */
  runs?: StepRunPorts;
  /** What an `emit` step reports: a root note (once per key), an audit line, a counter. */
  emit?: StepEmitPorts;
  /** Peers over A2A (`a2a.peers`), as the `a2a.send` / `a2a.delegate` steps reach them. */
  peers?: StepPeerPorts;
  /** Runs one of agentd's internal tools for the run (the `tool` step); never throws. */
  tool?(req: StepToolCall): Promise<{ result: unknown; is_error: boolean }>;
  /** A configured MCP server's resources, prompts and completions (`mcp.resource`, `wait on: resource`). */
  resources?(server: string): Promise<StepResources>;
  /** One-off callback routes on the listener's webhook routes (`wait on: webhook`). */
  callbacks?: StepCallbacks;
  /** Skill bodies by name from `skills.sources` (a `subagent` step's `skills`); `unknown`: names no source lists. */
  skills?(names: readonly string[]): Promise<{ bodies: { name: string; body: string }[]; unknown: string[] }>;
  /** `limits.inline_max_bytes`: a larger step output is kept as an artifact (default 65 536). */
  inlineMaxBytes?: number;
  /** The configured search provider (`search.provider`, read per call so a reload applies); null: none. */
  searchProvider?(): { url: string; key: string | null } | null;
  /** Resolves `{{secret:NAME}}` in a text (the config layer's resolver); throws naming an unset secret. */
  secret?(text: string): string;
}

/** A `wait on: webhook` step's callback route: opened while the step waits, closed when it stops. */
export interface StepCallbacks {
  /**
   * Opens `path` (auth as written: `{{secret:…}}` resolved here, never stored); each authenticated hit calls `onHit`,
   * which resolves once the delivery is durable. Returns the close; throws when the path is taken.
   */
  open(req: {
    path: string;
    methods?: string[];
    auth: unknown;
    id: string;
    run: string;
    onHit(payload: unknown, key: string): Promise<void>;
  }): () => void;
  /** The path's public URL on the listener, or null while no listener is up. */
  url(path: string): string | null;
}

/** A `tool` step's call, acting for the run; `key` makes a replayed call find what the first one did. */
export interface StepToolCall extends Omit<StepSubagentRequest, 'signal'> {
  name: string;
}

/** One MCP server's resources as steps use them; each call rejects with a short reason. */
export interface StepResources {
  read(uri: string, timeoutMs: number): Promise<string>;
  list(timeoutMs: number): Promise<unknown[]>;
  prompt(name: string, args: Record<string, string>, timeoutMs: number): Promise<unknown>;
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    timeoutMs: number,
  ): Promise<unknown>;
  /** Subscribes to `uri`; `cb` runs on each update. Resolves with the unsubscribe. */
  subscribe(uri: string, cb: () => void, timeoutMs: number): Promise<() => void>;
}

/** The desk's runs seen from a step. */
export interface StepRunPorts {
  /** Delivers signal `name` keyed by `key` (a replay holds nothing twice) to `run`, or every waiting run; counts. */
  signal(req: { name: string; payload: unknown; key: string; run: string | null; from: string }): Promise<number>;
  /** Cancels a run; an ended run answers its status, an unknown one is an error. */
  cancel(id: string, reason: string): Promise<{ ok: true; status: string } | { ok: false; error: string }>;
}

export interface StepEmitPorts {
  /** Leaves `text` as a note for the run's conversation (root when it has none); a key already noted is skipped. */
  note(req: { conversation: string | null; principal: string | null; text: string; key: string }): Promise<void>;
  /** Logs one `audit.emit` line. */
  audit(fields: { run: string; step: string; audit: unknown }): void;
  /** Adds one to the counter `agentd_workflow_metric_total{workflow, metric}`. */
  metric(workflow: string, name: string): void;
}

/** One message to a configured A2A peer, as a2a.send / a2a.delegate make it. */
export interface PeerSend {
  peer: string;
  /** A2A parts (`{kind: text|data, …}`). */
  parts: Record<string, unknown>[];
  /** Pins the A2A messageId: a replayed step sends the same message, which the peer deduplicates. */
  messageId: string;
  contextId: string | null;
  /** Wait for the peer's task to end (delegate) instead of answering with the first response (send). */
  untilDone: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  /** Labels the `a2a.send` / `a2a.delegate` event. */
  run: string;
  step: string;
}

/** What the peer answered: its task (or message) reduced to plain data. */
export type PeerAnswer =
  | {
      ok: true;
      task: string | null;
      context: string | null;
      state: string;
      text: string;
      data: unknown;
    }
  | { ok: false; error: string; timeout?: boolean };

export interface StepPeerPorts {
  send(req: PeerSend): Promise<PeerAnswer>;
}

/** A child run a `workflow` step asks for: acting for its parent run, never outliving the parent's deadline. */
export interface StepRunStart {
  workflow: string;
  node?: string;
  inputs: Record<string, unknown>;
  key: string;
  principal: string | null;
  conversation: string | null;
  parent: RunParent;
  /** A hash prefix the definition must have (`version`). */
  version?: string;
  deadlineMs: number | null;
}

/** A `human` step's question, asked for the run on a task keyed by `key` (found again after a restart). */
export interface StepHumanAsk {
  key: string;
  run: string;
  principal: string | null;
  conversation: string | null;
  question: string;
  schema?: Record<string, unknown>;
  /** Counted from the first ask of this key, so a restart does not extend it. */
  timeoutMs: number;
  /** Aborted when the step ends early: the task is cancelled. */
  signal: AbortSignal;
  /** `to`: the configured principal (its `a2a.principals` id) the question is addressed to. */
  to?: string;
  /** `reply_uri`: told of the question and of its end by a POST (push notification). */
  replyUri?: string;
}

/** A person's answer (`reply` null: nobody answered in time), or why nobody could be asked. */
export type StepHumanEnd = { ok: true; reply: string | null; task: string } | { ok: false; error: string };

export interface StepSubagentAwait {
  handle: string;
  principal: string | null;
  conversation: string | null;
  /** Aborted when the wait is no longer wanted (the run ended, the engine stopped): the await is dropped. */
  signal: AbortSignal;
}

/** A `subagent` step's call, acting for the run (its principal, the conversation that started it, depth 0). */
export interface StepSubagentRequest {
  /** subagent.run's arguments as the step rendered them (instruction or template + params, grants, limits, mode). */
  args: Record<string, unknown>;
  run: string;
  step: string;
  principal: string | null;
  conversation: string | null;
  /** The call key: a step replayed after a restart finds the subagent its interrupted attempt started. */
  key: string;
  /** Aborted when the step ends early (cancel, timeout, the run's end): a sync child is cancelled with it. */
  signal: AbortSignal;
}

/** The desk's answer: a sync child's end `{handle, status, result, error}`, else `{handle, status}` at once. */
export type StepSubagentEnd =
  | { ok: true; sync: boolean; answer: { handle: string; status: string; result?: unknown; error?: unknown } }
  | { ok: false; error: string };

export interface StepTurnRequest {
  conversation: string;
  text: string;
  principal: string | null;
  /** The inbox dedupe key: a step re-run after a crash finds the turn it already asked for. */
  key: string;
  /** How the step's turn differs from a conversation's (kept with the accepted event). */
  options?: StepTurnOptions;
  /** Aborted when the step ends early (cancel, timeout, the run's end): the turn is cancelled with it. */
  signal: AbortSignal;
  /** What the turn spent, when it folds after the step ended early (its end said `cancelled` without tokens). */
  spendLate?(tokens: number): void;
}

export interface StepTurnEnd {
  status: string;
  /** The reply text. */
  reply: string;
  /** The structured answer, when the turn gave one (`finish.output` or a JSON value). */
  value?: unknown;
  error?: string;
  /** Tokens the turn spent (charged, as budgets count them); absent for a turn that ended in an earlier life. */
  tokens?: number;
}

export interface StepDelivery {
  to: string;
  text: string;
  /** The run's conversation (the sender), or null. */
  from: string | null;
  principal: string | null;
  key: string;
}

/** One MCP call as the `mcp.tool` kind makes it: a value back, `is_error` for a tool-level or transport problem. */
export type McpCaller = (
  server: string,
  tool: string,
  args: unknown,
  call: { meta: Record<string, unknown>; timeoutMs: number; signal?: AbortSignal },
) => Promise<{ result: unknown; is_error: boolean }>;

export interface StepContext {
  run: Readonly<WorkflowRun>;
  step: Readonly<StepDef>;
  /** The kind's fields rendered (raw fields left as written). */
  spec: Readonly<Record<string, unknown>>;
  /** The namespaces CEL and templates see (reference §2.5). */
  scope: Readonly<Record<string, unknown>>;
  now: number;
  /** Stable per (run, step, attempt-independent): sha256("<run>.<step>")[0:32] unless the step pins one. */
  idempotencyKey: string;
  attempt: number;
  ports: StepPorts;
  /** Aborted when the step's timeout, the run's deadline or a cancel ends it. */
  signal: AbortSignal;
}

export interface NodeKind {
  name: string;
  category: KindCategory;
  doc: string;
  fields: Readonly<Record<string, FieldSpec>>;
  /** False: in the catalogue but refused at load in this build (never accepted and ignored). */
  implemented: boolean;
  /** Reaches outside the run (store, network): the run is committed with the step `running` before it starts. */
  effect?: boolean;
  /** Load-time checks beyond presence and CEL compilation: problem texts (without the step prefix). */
  check?(fields: Readonly<Record<string, unknown>>, stepIds: ReadonlySet<string>): string[];
  /** Absent for start kinds (they are never executed: firing one starts the run). */
  run?(ctx: StepContext): StepResult | Promise<StepResult>;
}

/** The abort reason of in-flight steps when the engine stops (a drain): what they started is the next life's. */
export const ENGINE_STOPPED = 'workflow engine stopped';

export const done = (output: unknown): StepResult => ({ type: 'done', output });
export const failed = (error: string): StepResult => ({ type: 'failed', error });

/** A call's time limit: the step's `timeout` (else `fallbackMs`), never past the run's deadline (§5 item 13). */
export function callLimitMs(ctx: Pick<StepContext, 'step' | 'run' | 'now'>, fallbackMs: number): number {
  const own = ctx.step.timeoutMs ?? fallbackMs;
  return ctx.run.deadlineMs === null ? own : Math.max(1, Math.min(own, ctx.run.deadlineMs - ctx.now));
}

/**
 * A step turn's token cap from its run (reference §2.8 `max_tokens = step budget ?? limits.tokens`): what the run may
 * still spend under `limits.tokens` (at least 1), lowered to the step's own cap when that is smaller; none without
 * either. Spend already counted is left out, so one turn cannot take a run far past its cap.
 */
export function turnTokenCap(run: Readonly<WorkflowRun>, own?: number): { max_tokens: number } | Record<never, never> {
  const cap = run.definition.limits.tokens;
  const left = cap === null ? undefined : Math.max(1, cap - (run.tokens ?? 0));
  const least = [left, own].filter((n): n is number => n !== undefined);
  return least.length > 0 ? { max_tokens: Math.min(...least) } : {};
}

/** Counts a step turn's spend against its run before the step's end is applied (StepPorts.spend). */
export async function chargeTurn(ctx: Pick<StepContext, 'ports' | 'run'>, end: StepTurnEnd): Promise<void> {
  if (end.tokens !== undefined && end.tokens > 0) await ctx.ports.spend?.(ctx.run.id, end.tokens);
}

/** StepTurnRequest.spendLate for a step of `ctx.run`: a cancelled turn's spend, counted when it folds. */
export function lateSpend(ctx: Pick<StepContext, 'ports' | 'run'>): (tokens: number) => void {
  const run = ctx.run.id;
  return (tokens) => void ctx.ports.spend?.(run, tokens)?.catch(() => {});
}

/** Why a step's early end stopped what it started (a turn, a child): the abort's reason as a cancel text. */
export function stepEndReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return `its workflow step ended: ${reason}`;
  return reason instanceof Error && reason.name === 'TimeoutError'
    ? 'its workflow step timed out'
    : 'its workflow step ended';
}

/**
 * The attempt a step's downstream key carries: its attempt less the ones a restart interrupted, so a replayed step
 * finds the turn or child its interrupted attempt started (producers reference §2.11) instead of starting another.
 */
export function keyedAttempt(ctx: Pick<StepContext, 'run' | 'step' | 'attempt'>): number {
  return ctx.attempt - (ctx.run.steps[ctx.step.id]?.replays ?? 0);
}

/** The step's key (stable across attempts), or the one the step pins with `idempotency.value`. */
export function pinnedKey(ctx: Pick<StepContext, 'spec' | 'idempotencyKey'>): string {
  const idem = ctx.spec['idempotency'];
  if (idem !== null && typeof idem === 'object') {
    const value = (idem as Record<string, unknown>)['value'];
    if (typeof value === 'string' && value !== '') return value;
  }
  return ctx.idempotencyKey;
}

/** Load problems for the fields of `names` a step sets: fields agentd parses and never reads, refused, not ignored. */
export function unbuiltFieldProblems(
  kind: string,
  fields: Readonly<Record<string, unknown>>,
  names: readonly string[],
): string[] {
  return names
    .filter((f) => fields[f] !== undefined)
    .map((f) => `${kind}.${f} is not built in this version; remove it`);
}
