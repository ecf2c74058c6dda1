// The supervisor: one event-driven reactor that owns durable state, queues turns, starts a worker per turn and
// folds results back. The only writer of the store. It never calls the model for a turn.

import { Spending } from '../budget/spending.js';
import type { Config } from '../config/types.js';
import { Compactor } from '../context/compactor.js';
import { appendMessage, hasUserMessageForEvent } from '../context/conversation.js';
import { MEMORY_KEYS_SHOWN } from '../context/systemPrompt.js';
import type { Conversation } from '../domain/conversation.js';
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import type { TurnJob } from '../domain/job.js';
import { describeError } from '../errors.js';
import { ActivityBoard, publishProgress } from '../obs/activityBoard.js';
import type { Logger } from '../obs/log.js';
import { Metrics } from '../obs/metrics.js';
import { statusText } from '../obs/statusView.js';
import { Staging } from '../prep/staging.js';
import type { TurnResult } from '../protocol/frames.js';
import type { Usage } from '../protocol/messages.js';
import { DROPPED_CONTINUATION, Steering, type SteeringDeps } from '../steering/steering.js';
import { orderedStore, settledWrites } from '../store/commitQueue.js';
import { MemoryKeyCache } from '../store/memoryKeyCache.js';
import { SequenceBlock } from '../store/sequenceBlock.js';
import type { Accepted, Store } from '../store/store.js';
import { timedStore } from '../store/timedStore.js';
import { buildToolHost, hostCapabilities } from '../tools/host.js';
import { serveToolRequest, type ToolServiceDeps, unparkAll } from '../tools/serving.js';
import { Children } from './children.js';
import { ConversationBook } from './conversationBook.js';
import { nextDispatchable, ownershipRefusal } from './dispatch.js';
import { deterministicResult, failedResult } from './fold.js';
import { FoldBack } from './foldBack.js';
import { logTurnDone } from './foldEvents.js';
import { type AcceptInput, inboxEvent } from './inbox.js';
import type { LiveTurn } from './liveTurn.js';
import { ABANDONED, Outcomes } from './outcomes.js';
import { Reactor } from './reactor.js';
import type { SupervisorOptions } from './supervisorOptions.js';
import { livenessLimits, spareWatch } from './supervisorOptions.js';
import type { TaskHooks } from './taskHooks.js';
import { ThinkChildren, type ThinkJob } from './thinkChildren.js';
import { TurnLauncher } from './turnLaunch.js';
import { TurnQueue } from './turnQueue.js';
import { TurnWorkers } from './turnWorkers.js';
import { defaultWorkerEntry } from './workerHandle.js';
import { WorkerPool } from './workerPool.js';

export type { AcceptInput, SupervisorOptions } from './supervisorOptions.js';

/** Turn ids reserved per store round trip. */
const TURN_ID_BLOCK = 1000;
/**
 * How long a start-up claim holds the inbox's pending events for this instance (`agent.name`). A restart under the
 * same name takes them back at once; under another name, after this long.
 */
const INBOX_LEASE_MS = 30_000;

export class Supervisor {
  private readonly config: Readonly<Config>;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly pool: WorkerPool;
  private readonly children: Children;
  private readonly turns: TurnWorkers;
  private readonly thinks: ThinkChildren;
  private readonly queue = new TurnQueue();
  private readonly conversations: ConversationBook;
  private readonly outcomes = new Outcomes();
  private readonly folds: FoldBack;
  /** Plan mode, goals, side tasks, and what a committed turn leads to. */
  readonly steering: Steering;
  private readonly activity = new ActivityBoard();
  private readonly staging: Staging;
  private readonly spending: Spending;
  private readonly launcher: TurnLauncher;
  private readonly compactor: Compactor;
  readonly metrics: Metrics;
  private restored = false;
  /** The store behind its commit queue (timing aside): what a drain waits on. */
  private readonly durable: Store;
  private readonly turnIds: SequenceBlock;
  private readonly memoryKeys: MemoryKeyCache;
  /** Contexts with an accept on its way to the store, and how many. */
  private readonly accepting = new Map<string, number>();
  private readonly reactor: Reactor;
  private draining = false;
  private paused = false;

  constructor(private readonly opts: SupervisorOptions) {
    this.config = opts.config;
    this.metrics = opts.metrics ?? new Metrics();
    this.durable = orderedStore(opts.store);
    this.store = timedStore(this.durable, (op, seconds) => this.metrics.storeLatency.observe({ op }, seconds));
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    const base = { config: this.config, store: this.store, log: this.log, now: this.now };
    [this.turnIds, this.memoryKeys] = this.storeCaches();
    this.reactor = new Reactor(() => this.tick(), this.log);
    const wake = (): void => this.reactor.schedule();
    const requeue = (job: TurnJob): void => this.queue.reinsert(job);
    this.conversations = new ConversationBook(this.store, this.log, this.now);
    const { conversations, metrics } = this;
    this.steering = new Steering(this.steeringDeps());
    this.spending = new Spending({
      ...base,
      metrics,
      wake,
      ownerOf: (ctx) => conversations.get(ctx)?.principal ?? null,
    });
    this.folds = new FoldBack({
      ...{ ...base, conversations, wake },
      outcomes: this.outcomes,
      tasks: opts.tasks,
      beforeCommit: () => this.killPoint('fold.before_commit'),
      committed: (eventId, outcome, result) => this.committed(eventId, outcome, result),
    });
    this.pool = this.workerPool();
    this.children = new Children({ ...base, pool: this.pool, limits: livenessLimits(this.config) });
    const onSpent = (job: ThinkJob, usage: Usage): void => this.spending.thinkSpent(job.ctx, usage, job.purpose);
    this.thinks = new ThinkChildren({ ...base, children: this.children, onChange: wake, onSpent });
    this.staging = new Staging({
      ...base,
      thinks: this.thinks,
      tools: opts.tools,
      memoryKeys: () => this.memoryKeys.keys,
      markDirty: (id) => conversations.markDirty(id),
      statusFor: (principal) => this.statusFor(principal),
      requeue,
      reply: (job, conv, text) => this.folds.finish(job, conv, deterministicResult(text, this.now()), true),
      wake,
    });
    this.compactor = new Compactor({ ...base, conversations, thinks: this.thinks, metrics, onChange: wake });
    this.turns = this.turnWorkers();
    this.launcher = new TurnLauncher({
      ...base,
      turnIds: this.turnIds,
      conversations,
      folds: this.folds,
      turns: this.turns,
      snapshot: (job, conv) => this.staging.payload(job, conv, ''),
      stage: (job, conv) => {
        if (!this.staging.wants(job, conv)) return false;
        this.staging.start(job, conv);
        return true;
      },
      steering: this.steering,
      messageWaiting: (ctx) => this.queue.jobs.some((j) => j.ctx === ctx && j.event.kind !== 'goal_continuation'),
      wake,
      budget: this.spending.budget,
      waits: this.spending.waits,
      requeue,
      onRefused: () => metrics.budgetRefusals.inc(),
    });
    this.registerGauges();
  }

  /** What the tick reads synchronously from the store: turn ids reserved ahead, the first memory keys. */
  private storeCaches(): [SequenceBlock, MemoryKeyCache] {
    const failed = (err: unknown): void => this.log.error('store.checkpoint.fail', { err: describeError(err) });
    return [
      new SequenceBlock(this.store.sequences, 'turn', TURN_ID_BLOCK, failed),
      new MemoryKeyCache(this.store.memory, MEMORY_KEYS_SHOWN, this.now, failed),
    ];
  }

  /** A committed fold leaves the books; what it leads to (notes, a goal's next turn) follows. */
  private committed(eventId: string, outcome: InboxOutcome, result: TurnResult | undefined): void {
    const event = this.queue.forget(eventId);
    if (event) this.steering.afterTurn(result ? { event, outcome, result } : { event, outcome });
    // The commit settled outside a step: idle, drains and watches look again.
    this.reactor.schedule();
  }

  /** Spare workers; with MCP servers configured they import the MCP client while they wait. */
  private workerPool(): WorkerPool {
    const preload = Object.keys(this.config.mcp.servers).length > 0 ? { AGENTD_WORKER_PRELOAD: 'mcp' } : {};
    const spares = this.opts.warmWorkers ?? this.config.agent.warm_workers;
    const env = { ...process.env, ...preload };
    const watch = spareWatch(this.config, this.log, this.now);
    return new WorkerPool(this.opts.workerEntry ?? defaultWorkerEntry(), spares, env, watch);
  }

  /** The live conversation turns, wired to tool serving, admission, accounting and fold-back. */
  private turnWorkers(): TurnWorkers {
    const [caps, service] = [this.hostCapabilities(), this.toolService()];
    return new TurnWorkers({
      children: this.children,
      log: this.log,
      now: this.now,
      toolHost: (turn) => buildToolHost(caps, turn),
      serveTool: (turn, frame) => serveToolRequest(service, turn, frame),
      onProgress: (turn, event, fields) => this.progress(turn, event, fields),
      admit: (turn, frame) =>
        turn.handle.send({ type: 'budget_grant', id: frame.id, ...this.spending.grant(turn, frame.estimate) }),
      onUsage: (turn, spent) => this.spending.turnUsage(turn, spent),
      onSettled: (turn, result) => this.settle(turn, result),
      onGone: (turn) => {
        // A turn a drain abandoned is still charged what it reported (its event replays later).
        this.spending.settleTurn(turn, turn.usage);
        unparkAll(turn);
        if (this.activity.remove(turn.node)) this.log.debug('activity.removed', { node: turn.node, ctx: turn.job.ctx });
        this.thinks.killChildrenOf(turn.node);
        if (turn.abandoned) this.outcomes.resolve(turn.job.event.id, ABANDONED);
        this.reactor.schedule();
      },
    });
  }

  private steeringDeps(): SteeringDeps {
    return {
      ...{ config: this.config, log: this.log, now: this.now, conversations: this.conversations },
      pending: (ctx) => ({
        // A message in staging (preflight, knowledge) is still waiting: it goes before a continuation.
        queued:
          this.queue.jobs.some((j) => j.ctx === ctx) ||
          this.staging.busyContexts().includes(ctx) ||
          this.accepting.has(ctx),
        live: this.turns.unfoldedContexts().includes(ctx),
      }),
      paused: () => this.paused,
      draining: () => this.draining,
      restored: () => this.restored,
      think: (job) => this.thinks.run(job),
      engine: (eventId, type, fields) => this.opts.tasks?.onEngineEvent(eventId, type, fields),
    };
  }

  /** Loads conversations, claims every pending inbox event and re-queues them in order, with their original ids. */
  async restore(): Promise<{ generation: number; pending: number }> {
    await this.conversations.load();
    await this.spending.budget.load();
    await this.turnIds.reserve();
    await this.memoryKeys.start();
    const pending = await this.store.inbox.claim(this.config.agent.name, INBOX_LEASE_MS, this.now());
    await this.opts.tasks?.recover?.(pending);
    for (const event of pending) this.queue.enqueue(event);
    const generation = this.store.generation;
    this.log.info('restore.done', { generation, pending: pending.length, conversations: this.conversations.size });
    // A goal whose next continuation a crash or a drain lost picks up again (one already queued replays instead).
    this.steering.kickAll();
    this.reactor.schedule();
    if (pending.length === 0) this.pool.fill();
    this.restored = true;
    return { generation, pending: pending.length };
  }

  /**
   * Writes the event durably, then queues it; resolves once the commit stuck. A duplicate (the principal's
   * `dedupe_key` was accepted before) queues nothing and resolves with the record that holds the key.
   */
  async accept(input: AcceptInput): Promise<Accepted> {
    // The mode is captured here, at the request boundary: a later switch never changes this message's turn.
    const event = inboxEvent(input, this.now(), this.steering.modeOf(input.context_id));
    const ctx = input.context_id;
    // Until it is queued, the conversation counts as having a message waiting (no goal continuation overtakes).
    this.accepting.set(ctx, (this.accepting.get(ctx) ?? 0) + 1);
    let accepted: Accepted;
    try {
      accepted = await this.store.inbox.accept(event, this.opts.tasks?.taskFor?.(event) ?? undefined);
    } finally {
      const left = (this.accepting.get(ctx) ?? 1) - 1;
      if (left === 0) this.accepting.delete(ctx);
      else this.accepting.set(ctx, left);
    }
    if (!accepted.created) {
      this.log.info('inbox.duplicate', { inbox_event: accepted.record.id, status: accepted.record.status, ctx });
      return accepted;
    }
    this.killPoint('inbox.after_put');
    this.log.info('inbox.accepted', { inbox_event: event.id, kind: event.kind, ctx: input.context_id });
    this.queue.enqueue(event);
    this.reactor.schedule();
    return accepted;
  }

  /**
   * Resolves with the event's outcome once its turn has folded back (at once when it already has). An unknown
   * event, or one a drain abandoned, resolves with a `failed` / `cancelled` outcome that says so.
   */
  outcomeOf(eventId: string): Promise<InboxOutcome> {
    return this.outcomes.of(eventId, {
      known: this.queue.has(eventId),
      inbox: this.store.inbox,
      draining: this.draining,
    });
  }

  /** True when nothing is running and nothing queued can start (empty queue, paused, or draining). */
  get idle(): boolean {
    const stalled = this.queue.length === 0 || this.paused || this.draining;
    const staging = this.staging.size + this.thinks.busyContexts().length;
    return this.turns.size === 0 && staging === 0 && stalled;
  }

  /** Restored and not draining: the instance takes new work (`/readyz`). */
  get ready(): boolean {
    return this.restored && !this.draining;
  }

  /** Resolves once the supervisor is idle. */
  async whenIdle(): Promise<void> {
    await this.reactor.until(() => this.idle);
  }

  /** A read-only view of a conversation (tests, embedding, status). */
  conversation(id: string): Conversation | undefined {
    return this.conversations.get(id);
  }

  /** Operator hold: accepted messages queue, no new turn starts; running turns go on. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.log.info('agent.paused', { queued: this.queue.length, live: this.turns.size });
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.log.info('agent.resumed', { queued: this.queue.length });
    this.steering.kickAll();
    this.reactor.schedule();
  }

  /** Process ids of the spare workers kept warm. */
  get warmWorkerPids(): number[] {
    return this.pool.sparePids;
  }

  /** A snapshot of the instance (the `status` tool and the operator command). */
  status(): Record<string, unknown> {
    const { paused, draining } = this;
    const counts = {
      conversations: this.conversations.size,
      running_turns: this.turns.size,
      queued: this.queue.length,
    };
    return { instance: this.config.agent.name, generation: this.store.generation, ...counts, paused, draining };
  }

  /** Cancels the turn answering inbox event `eventId`: a running one is cancelled, a queued one never starts. */
  cancelEvent(eventId: string, reason: string): void {
    const job = this.queue.takeEvent(eventId) ?? this.staging.take(eventId);
    if (job) {
      this.spending.waits.forget(job.ctx, eventId);
      this.folds.finish(job, this.conversations.open(job.ctx, job.principal), failedResult(reason, 'cancelled'));
      this.reactor.schedule(); // the conversation's next message may start now
      return;
    }
    this.turns.cancelEvent(eventId, reason);
  }

  /** Cancels the live turn of a conversation: the worker seals and reports; its process group dies after a grace. */
  cancel(ctx: string, reason = 'cancelled by operator'): boolean {
    return this.turns.cancel(ctx, reason);
  }

  /** Starts no new turns; waits up to `timeoutMs` for live ones, then kills the rest (their events replay later). */
  async drain(timeoutMs: number): Promise<{ abandoned: number; queued: number }> {
    this.draining = true;
    this.log.info('drain.start', { live: this.turns.size, queued: this.queue.length });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.untilNoLiveWork().then(() => false),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(true), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    const abandoned = timedOut ? this.turns.abandonAll('drain timeout') : 0;
    if (timedOut) {
      this.thinks.killAll();
      this.staging.abandonAll();
    }
    await this.untilNoLiveWork();
    this.children.close();
    this.spending.waits.stop();
    this.checkpoint();
    // What the checkpoint and the last folds enqueued is durable before the drain reports.
    await settledWrites(this.durable);
    for (const job of this.queue.jobs) this.outcomes.resolve(job.event.id, ABANDONED);
    this.log.info('drain.done', { abandoned, queued: this.queue.length });
    return { abandoned, queued: this.queue.length };
  }

  /** A worker's progress: coarse activity, or a body / tool-card event for the task's live feed. */
  private progress(turn: LiveTurn, event: string, fields: Record<string, unknown>): void {
    publishProgress({ board: this.activity, log: this.log, tasks: this.opts.tasks }, turn, event, fields, this.now());
  }

  /** What every turn's tool host is built from (once per supervisor; the host itself once per turn). */
  private hostCapabilities() {
    return hostCapabilities({
      ...{ config: this.config, store: this.store, log: this.log, now: this.now, tasks: this.opts.tasks },
      ...{ conversations: this.conversations, thinks: this.thinks, staging: this.staging },
      ...{ compactor: this.compactor, steering: this.steering, watchers: this.reactor.watchers },
      wake: () => this.reactor.schedule(),
      ports: this.opts.ports,
      status: () => this.status(),
    });
  }

  private toolService(): ToolServiceDeps {
    return {
      progress: (t, event, fields) => this.progress(t, event, fields),
      log: this.log,
      now: this.now,
      tools: this.opts.tools,
      config: this.config,
      ...(this.opts.tasks ? { tasks: this.opts.tasks } : {}),
    };
  }

  private untilNoLiveWork(): Promise<void> {
    return this.reactor.until(
      () => this.turns.size === 0 && this.thinks.busyContexts().length === 0 && this.staging.size === 0,
    );
  }

  /** One reactor step: start what the gate allows and checkpoint (the reactor then re-checks watches). */
  private tick(): void {
    // A conversation in staging, or whose turn the budget deferred, stays blocked: no later message overtakes.
    const busy = new Set([
      ...this.turns.busyContexts(),
      ...this.thinks.busyContexts(),
      ...this.staging.busyContexts(),
      ...this.spending.waits.blocked(),
    ]);
    const gate = { liveTurns: this.turns.size, busy, paused: this.paused, draining: this.draining };
    const picks = nextDispatchable(this.queue.jobs, gate, this.config.agent.max_parallel_turns);
    const jobs = this.queue.take(picks);
    for (const job of jobs) this.launcher.dispatch(job);
    if (jobs.length > 0) setImmediate(() => this.pool.fill());
    this.checkpoint();
  }

  private checkpoint(): void {
    this.folds.checkpoint();
    this.spending.budget.flush();
  }

  /** The `status` verdict's reply: the instance as `principal` may see it. */
  private statusFor(principal: string | null): string {
    return statusText({
      principal,
      conversations: this.conversations.list(),
      running: this.turns.busyContexts(),
      queued: this.queue.jobs.map((j) => j.ctx),
      paused: this.paused,
      draining: this.draining,
    });
  }

  private settle(turn: LiveTurn, result: TurnResult): void {
    logTurnDone(this.log, { node: turn.node, ctx: turn.job.ctx, turn: turn.turnId }, result);
    this.metrics.turns.inc({ status: result.status });
    this.spending.settleTurn(turn, result.usage);
    this.folds.finish(turn.job, this.conversations.open(turn.job.ctx, turn.job.principal), result);
    this.compactor.afterTurn(turn.job.ctx);
  }

  private registerGauges(): void {
    const m = this.metrics;
    const [queued, running] = [() => this.queue.length, () => this.turns.size];
    m.gauge('agentd_turns_queued', 'Turns waiting for the dispatch gate.', queued);
    m.gauge('agentd_turns_running', 'Conversation turns running now.', running);
    m.gauge('agentd_inbox_pending', 'Accepted events not answered yet.', () => queued() + running());
  }

  private killPoint(name: string): void {
    if (this.opts.killAt?.has(name)) process.kill(process.pid, 'SIGKILL');
  }
}
