// The supervisor's construction options and what is built from them alone (the worker pool, the store caches, the
// watchdog's limits), the shape of a message to accept, and the hooks of whoever owns tasks.
import type { Config } from '../config/types.js';
import { MEMORY_KEYS_SHOWN } from '../context/systemPrompt.js';
import type { FeedEntry } from '../domain/feed.js';
import type { HumanReach } from '../domain/humanChannel.js';
import type { InboxEvent, InboxOutcome, MessagePayload, StepTurnOptions } from '../domain/inbox.js';
import type { TaskRecord, TaskState } from '../domain/task.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { Tracer } from '../obs/tracing.js';
import { MemoryKeyCache } from '../store/memoryKeyCache.js';
import { SequenceBlock } from '../store/sequenceBlock.js';
import type { Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import type { ToolResult } from '../tools/internalTools.js';
import { TOOL_TIMER_KIND } from '../tools/serving.js';
import type { ToolSurface } from '../tools/surface.js';
import type { WorkPorts } from '../tools/toolOutcome.js';
import { systemClock, TimerService } from '../triggers/timerService.js';
import { spawnErrorCode } from './backoff.js';
import { type LivenessLimits, pingIntervalMs } from './liveness.js';
import { type ReuseLimits, sparePreloads } from './poolPolicy.js';
import { defaultWorkerEntry, type WorkerEntry } from './workerHandle.js';
import { type SpareWatch, WorkerPool } from './workerPool.js';

export interface SupervisorOptions {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  /** The registry and MCP connections (see ToolSurface.start); without it turns get the internal tools only. */
  tools?: ToolSurface;
  /** Whoever owns A2A tasks (the listener's backend); without it there are no tasks and no person to ask. */
  tasks?: TaskHooks;
  /** Where message.send and side.start reach the producers that accept their work; without it they are refused. */
  ports?: WorkPorts;
  workerEntry?: WorkerEntry;
  /** How long an inbox claim holds pending events for this instance (default 30 s; tests use a short one). */
  inboxLeaseMs?: number;
  /** Spare workers kept started (default `agent.warm_workers`); 0 spawns each worker on demand. */
  warmWorkers?: number;
  now?: () => number;
  /** Test-only crash points (`inbox.after_put`, `fold.before_commit`): the process SIGKILLs itself there. */
  killAt?: ReadonlySet<string>;
  /** Where turns, tokens, compactions and store latency are counted (served by the metrics listener). */
  metrics?: Metrics;
  /** Traces (observability.otlp_endpoint); absent or null: off. */
  tracer?: Tracer | null;
}

/** The watchdog's limits from config (lifecycle.pong_timeout, lifecycle.progress_timeout). */
export function livenessLimits(config: Readonly<Config>): LivenessLimits {
  return { pongTimeoutMs: config.lifecycle.pong_timeout, progressTimeoutMs: config.lifecycle.progress_timeout };
}

/** How long one worker process lives (agent.worker_max_turns, agent.worker_max_rss). */
export function reuseLimits(config: Readonly<Config>): ReuseLimits {
  return { maxTurns: config.agent.worker_max_turns, maxRssBytes: config.agent.worker_max_rss };
}

/** How the pool judges its spares: an unanswered ping older than one ping interval disqualifies a spare. */
function spareWatch(config: Readonly<Config>, log: Logger, now: () => number): SpareWatch {
  const limits = livenessLimits(config);
  return {
    now,
    limits,
    answerWithinMs: pingIntervalMs(limits),
    onUnhealthy: (pid, { health, detail }) =>
      log.warn('child.unhealthy', { node: null, kind: 'spare', worker_pid: pid, health, detail }),
    onSpawnFailed: (err, retryInMs) =>
      log.warn('spare.spawn_fail', { code: spawnErrorCode(err), err: describeError(err), retry_in_ms: retryInMs }),
    onStale: (pid) =>
      log.debug('worker.recycle', { node: null, kind: 'spare', worker_pid: pid, reason: 'its MCP servers changed' }),
  };
}

// What the durable inbox receives: one producer's input, stamped into an inbox event of that producer's kind
// (reference §2.2, §3.2). Kind-specific fields travel in the payload; nothing here reads or writes the store.
interface AcceptBase {
  context_id: string;
  text: string;
  principal: string | null;
  dedupe_key?: string;
  /** Hop depth: 0 for a person's message, the sender's depth + 1 for message.send. */
  msg_depth?: number;
  /** The A2A task this message answers. */
  task?: { id: string; context_id: string };
  /** This message's mode, when its caller chose one (else the conversation's mode at accept). */
  mode?: 'plan' | 'execute';
  /** A workflow step's turn settings (only with kind `workflow_step`). */
  step?: StepTurnOptions;
}

/** A message to accept into the durable inbox; `kind` names its producer (default `a2a_message`, a caller's). */
export type AcceptInput =
  | (AcceptBase & { kind?: 'a2a_message' | 'startup_prompt' | 'timer' | 'subagent' | 'workflow_step' })
  | (AcceptBase & { kind: 'agent_message'; from: string })
  | (AcceptBase & { kind: 'goal_continuation'; goal_created: number })
  | (AcceptBase & { kind: 'side_task'; parent: string })
  | (AcceptBase & { kind: 'wake_note'; about: string });

/** The inbox event for `input`, accepted at `now`; `mode` is the conversation's mode at this request boundary. */
export function inboxEvent(input: AcceptInput, now: number, mode: 'plan' | 'execute'): InboxEvent {
  const payload: MessagePayload = {
    context_id: input.context_id,
    text: input.text,
    ...(input.msg_depth ? { msg_depth: input.msg_depth } : {}),
    ...(input.task ? { task: input.task } : {}),
    ...(mode === 'plan' ? { mode } : {}),
    ...(input.step ? { step: input.step } : {}),
  };
  const base = { id: newUlid(now), ts: now, principal: input.principal };
  const event = withKind(input, base, payload);
  if (input.dedupe_key !== undefined) event.dedupe_key = input.dedupe_key;
  return event;
}

function withKind(input: AcceptInput, base: Omit<InboxEvent, 'kind' | 'payload'>, payload: MessagePayload): InboxEvent {
  switch (input.kind) {
    case 'agent_message':
      return { ...base, kind: input.kind, payload: { ...payload, from: input.from } };
    case 'goal_continuation':
      return { ...base, kind: input.kind, payload: { ...payload, goal_created: input.goal_created } };
    case 'side_task':
      return { ...base, kind: input.kind, payload: { ...payload, parent: input.parent } };
    case 'wake_note':
      return { ...base, kind: input.kind, payload: { ...payload, about: input.about } };
    default:
      return { ...base, kind: input.kind ?? 'a2a_message', payload };
  }
}

// The seam between the supervisor and A2A tasks: what the reactor asks of whoever owns tasks (the A2A backend)
// at fold-back, on progress, and when a turn needs a person. The supervisor itself knows nothing of A2A.
export interface HumanAsk {
  /** The inbox event of the turn that asks (its task is the one that goes input_required). */
  eventId: string;
  question: string;
  schema?: Record<string, unknown>;
  timeoutAt: number;
  /** Set when a tool policy's `ask` asks to approve a call (the answer is read as yes or no). */
  approval?: { tool: string; rule: string };
}

/** A workflow `human` step's task: keyed by the step (its inbox_event), for the run's principal and conversation. */
export interface StepTaskOpen {
  key: string;
  run: string;
  principal: string;
  conversation: string;
}

/** The live feed's engine events (seed 003), each its own type. */
export type EngineEventType = 'body' | 'tool_card' | 'proposal' | 'checklist' | 'compaction' | 'memory';

/** `humanChannel` (a person can be asked: a listener is up) and `humanChannelFor` come from HumanReach. */
export interface TaskHooks extends HumanReach {
  /** The task an event's fold moves to its terminal state, to commit in the same transaction; null when none. */
  taskForFold(eventId: string, outcome: InboxOutcome): Promise<TaskRecord | null>;
  /** The task record an event starts with, committed in the accept's own transaction; null when none. */
  taskFor?(event: InboxEvent): TaskRecord | null;
  /** At restore, before the claimed events queue: rebuild the tasks a crash lost after their inbox write. */
  recover?(pending: readonly InboxEvent[]): Promise<void>;
  /** The client feed's entries of the task's end, committed in the fold's own transaction (issue 18). */
  feedForFold?(task: TaskRecord): FeedEntry[];
  /**
   * The client feed's entries of a turn no A2A task follows (a `--prompt` job, a workflow step, a wake note, a
   * timer, `message.send`, a goal): its message and reply in the conversation `owner` owns, committed in the fold's
   * own transaction so each shows exactly once across a restart (issue 18).
   */
  feedForTurn?(event: InboxEvent, outcome: InboxOutcome, owner: string | null): FeedEntry[];
  /** After a fold without a task committed feed entries: live streams read them from the store. */
  feedCommitted?(): void;
  /** After the fold committed: tell watchers. */
  afterFold(task: TaskRecord): void;
  /** Coarse live activity of the turn answering `eventId` (published only when phase, tool or round changed). */
  onActivity(eventId: string, activity: Record<string, unknown>): void;
  /** A distinct engine event of that turn for the live feed: body, tool_card, proposal, checklist, … */
  onEngineEvent(eventId: string, type: EngineEventType, fields: Record<string, unknown>): void;
  /** Puts the event's task in input_required with the question; resolves with the person's answer or a timeout. */
  askHuman(ask: HumanAsk): Promise<ToolResult>;
  /** A `human` step's task, found by its key (after a restart) or created working; null when nobody owns tasks. */
  openStepTask?(step: StepTaskOpen): Promise<TaskRecord | null>;
  /** Ends a `human` step's task (a terminal task stays as it is). */
  endStepTask?(id: string, state: TaskState, message: string): Promise<void>;
}

/** Turn ids reserved per store round trip. */
const TURN_ID_BLOCK = 1000;

/**
 * What the tick reads synchronously from the store: turn ids reserved ahead, the first memory keys, the armed
 * durable timers.
 */
export function storeCaches(
  store: Store,
  log: Logger,
  now: () => number,
): [SequenceBlock, MemoryKeyCache, TimerService] {
  const failed = (err: unknown): void => log.error('store.checkpoint.fail', { err: describeError(err) });
  return [
    new SequenceBlock(store.sequences, 'turn', TURN_ID_BLOCK, failed),
    new MemoryKeyCache(store.memory, MEMORY_KEYS_SHOWN, now, failed),
    timerService(store, log, now),
  ];
}

/** The supervisor's durable timer service; a parked tool's timer is dropped at start (no turn survives a restart). */
export function timerService(store: Store, log: Logger, now: () => number): TimerService {
  const timers = new TimerService({ timers: store.timers, log, clock: { ...systemClock, now } });
  timers.handle(TOOL_TIMER_KIND, null, { ephemeral: true });
  return timers;
}

/**
 * Spare workers; they import what the config's turns will need while they wait (sparePreloads, decided at start: a
 * reload that changes `worker_max_turns` changes what later spares hold only at the next start).
 */
export function workerPool(opts: SupervisorOptions, log: Logger, now: () => number): WorkerPool {
  const { intelligence, mcp, agent } = opts.config;
  const wanted = sparePreloads(intelligence, Object.keys(mcp.servers).length, agent.worker_max_turns);
  const preload = wanted.length > 0 ? { AGENTD_WORKER_PRELOAD: wanted.join(',') } : {};
  const spares = opts.warmWorkers ?? opts.config.agent.warm_workers;
  const env = { ...process.env, ...preload };
  const watch = spareWatch(opts.config, log, now);
  const { config, tools } = opts;
  // Read at each use: a reload of these keys applies to the next turn (opts.config is the live view, §3.6).
  const lifetime = {
    get maxDemand() {
      return config.agent.max_parallel_turns;
    },
    get reuse() {
      return reuseLimits(config);
    },
    // A reload that changes mcp.servers retires the workers keeping the old connections (ToolSurface.reconcile).
    ...(tools ? { mcpInForce: () => tools.serverSpecKeys() } : {}),
  };
  // The workers' stderr goes through our logger: an embedder's `log` sees worker events too.
  const entry = { ...(opts.workerEntry ?? defaultWorkerEntry()), log };
  return new WorkerPool(entry, spares, env, watch, lifetime);
}
