// The supervisor: one event-driven reactor that owns durable state, runs each accepted event as one job of the job
// table (inbox → prep → gate → launch → fold) and folds results back. The only writer of the store. It never
// calls the model for a turn.
import { Spending } from '../budget/spending.js';
import type { Config } from '../config/types.js';
import { Compactor } from '../context/compactor.js';
import { ConversationBook } from '../context/conversationBook.js';
import type { Conversation } from '../domain/conversation.js';
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import type { ThinkJob } from '../domain/job.js';
import { ActivityBoard, publishProgress } from '../obs/activityBoard.js';
import type { Logger } from '../obs/log.js';
import { Metrics } from '../obs/metrics.js';
import { RunTap } from '../obs/runTap.js';
import { Staging } from '../prep/staging.js';
import type { Usage } from '../protocol/messages.js';
import { Steering, type SteeringDeps } from '../steering/steering.js';
import { CommitHealth } from '../store/commitHealth.js';
import { orderedStore, settledWrites } from '../store/commitQueue.js';
import { InboxLease, inboxLeaseMs } from '../store/inboxLease.js';
import type { MemoryKeyCache } from '../store/memoryKeyCache.js';
import type { SequenceBlock } from '../store/sequenceBlock.js';
import type { Accepted, Store } from '../store/store.js';
import { timedStore } from '../store/timedStore.js';
import { type SubagentDesk, subagentDesk } from '../subagents/deskWiring.js';
import { buildToolHost, hostCapabilities } from '../tools/host.js';
import { serveToolRequest, type ToolServiceDeps } from '../tools/serving.js';
import { Children } from './children.js';
import { ConversationIntake, heldContexts } from './conversationIntake.js';
import { ABANDONED, FoldBack, Outcomes } from './foldBack.js';
import { instanceStatus, type StatusParts, statusReply } from './instanceStatus.js';
import {
  drainVictims,
  type Hold,
  idle,
  isPending,
  liveTurns,
  liveWork,
  messageWaiting,
  pendingContexts,
  statusCounts,
  waitingJobs,
} from './jobQueries.js';
import { Jobs, registerJobGauges, supervisorHandlers } from './jobs.js';
import type { PressureCause, PressureLevel } from './pressure.js';
import { dispatchSupervisorEvent, Reactor, type SupervisorEvent, type SupervisorHandlers } from './reactor.js';
import type { SupervisorOptions } from './supervisorOptions.js';
import { type AcceptInput, inboxEvent, livenessLimits, storeCaches, workerPool } from './supervisorOptions.js';
import { ThinkChildren } from './thinkChildren.js';
import { TurnLauncher } from './turnLaunch.js';
import { type LiveTurn, TurnWorkers } from './turnWorkers.js';
import type { WorkerPool } from './workerPool.js';

export type { AcceptInput, SupervisorOptions } from './supervisorOptions.js';

export class Supervisor {
  private readonly config: Readonly<Config>;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly pool: WorkerPool;
  private readonly children: Children;
  private readonly turns: TurnWorkers;
  private readonly thinks: ThinkChildren;
  private readonly jobs: Jobs;
  private readonly conversations: ConversationBook;
  private readonly outcomes = new Outcomes();
  /** Whether the store takes commits: `/readyz` and new accepts read it (issue 13 item 8). */
  readonly commits = new CommitHealth((key, err) => this.log.error('store.commit.fail', { key, err }));
  private readonly folds: FoldBack;
  /** Plan mode, goals, side tasks, and what a committed turn leads to. */
  readonly steering: Steering;
  readonly intake: ConversationIntake; // loads evicted conversations for producers; a principal's quotas
  readonly runTap = new RunTap(); // each run's progress, for the embedding API's `run().events`
  private readonly activity = new ActivityBoard(this.runTap, () => this.metrics);
  private readonly staging: Staging;
  private readonly spending: Spending;
  private readonly launcher: TurnLauncher;
  private readonly compactor: Compactor;
  readonly subagents: SubagentDesk;
  readonly timers: ReturnType<typeof storeCaches>[2]; // durable timers (producers reference §3.8), re-armed at restore
  readonly metrics: Metrics;
  private restored = false;
  /** The store behind its commit queue (timing aside): what a drain waits on. */
  private readonly durable: Store;
  private readonly turnIds: SequenceBlock;
  private readonly memoryKeys: MemoryKeyCache;
  private readonly reactor: Reactor;
  private readonly handlers: SupervisorHandlers;
  /** The operator's pause, the drain (the handlers set `paused`) and the pressure gate (`setPressure`). */
  private readonly hold: Required<Hold> = { paused: false, draining: false, pressure: 'ok', pressureCause: null };
  private readonly lease: InboxLease;

  constructor(private readonly opts: SupervisorOptions) {
    this.config = opts.config;
    this.metrics = opts.metrics ?? new Metrics();
    this.durable = orderedStore(opts.store);
    this.store = timedStore(this.durable, (op, seconds) => this.metrics.storeLatency.observe({ op }, seconds));
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    const base = { config: this.config, store: this.store, log: this.log, now: this.now };
    [this.turnIds, this.memoryKeys, this.timers] = storeCaches(this.store, this.log, this.now);
    this.reactor = new Reactor(() => this.tick(), this.log);
    const wake = (): void => this.reactor.schedule();
    this.jobs = new Jobs(base);
    const busy = () => heldContexts(this.jobs.jobs.values(), this.intake.held(), this.thinking());
    const admitNew = (id: string, owner: string | null) => this.intake.checkNew(owner, id);
    this.conversations = new ConversationBook(this.store, this.log, this.now, { ...this.config.store, busy, admitNew });
    const { conversations, metrics, jobs, timers } = this;
    this.intake = new ConversationIntake({ ...base, conversations, jobs });
    this.steering = new Steering(this.steeringDeps());
    const onRoom = () => this.handle({ type: 'budget_room' });
    const ownerOf = (ctx: string) => conversations.heads.ownerOf(ctx);
    this.spending = new Spending({ ...base, metrics, wake, onRoom, ownerOf });
    this.folds = new FoldBack({
      ...{ ...base, conversations, outcomes: this.outcomes, tasks: opts.tasks, health: this.commits },
      killPoint: (name) => this.killPoint(name),
      committed: (eventId, outcome, result) =>
        this.handle({ type: 'fold_committed', eventId, outcome, ...(result ? { result } : {}) }),
      failed: (eventId, fencedCtx) => this.handle({ type: 'fold_failed', eventId, fencedCtx }),
    });
    this.pool = workerPool(opts, this.log, this.now);
    this.children = new Children({ ...base, pool: this.pool, limits: livenessLimits(this.config) });
    const onSpent = (job: ThinkJob, usage: Usage): void => this.spending.thinkSpent(job.ctx, usage, job.purpose);
    this.thinks = new ThinkChildren({ ...base, children: this.children, onChange: wake, onSpent });
    this.staging = new Staging({
      ...{ ...base, thinks: this.thinks, tools: opts.tools },
      memoryKeys: () => this.memoryKeys.keys,
      setPlan: (conv, plan) => conversations.setPlan(conv, plan),
      setSkills: (conv, names) => conversations.setSkills(conv, names),
      append: (conv, msgs) => conversations.append(conv, msgs),
      statusFor: (principal) => statusReply(this.statusParts(), principal),
      staging: (eventId) => jobs.jobs.get(eventId)?.state === 'staging',
      finished: (job, reply) => this.handle({ type: 'staging_done', eventId: job.event.id, reply }),
    });
    this.compactor = new Compactor({ ...base, conversations, thinks: this.thinks, metrics, onChange: wake });
    const parts = { children: this.children, thinks: this.thinks, spending: this.spending, metrics, hold: this.hold };
    this.subagents = subagentDesk({ ...base, ...parts, opts, reactor: this.reactor, conversations, timers });
    this.turns = this.turnWorkers();
    this.launcher = new TurnLauncher({
      ...{ ...base, turnIds: this.turnIds, conversations, turns: this.turns, steering: this.steering },
      snapshot: { ...this.staging.snapshotParts, reach: this.opts },
      wantsStaging: (job, conv) => this.staging.wants(job, conv),
      messageWaiting: (ctx) => messageWaiting(jobs.jobs, ctx),
      budget: this.spending.budget,
      waits: this.spending.waits,
      onRefused: () => metrics.budgetRefusals.inc(),
    });
    const context = { ...{ ...base, wake, metrics, jobs, conversations }, ...this.effectModules() };
    jobs.bind(context);
    this.handlers = supervisorHandlers({ ...context, hold: this.hold, thinks: this.thinks, activity: this.activity });
    registerJobGauges(this.metrics, this.jobs);
    this.lease = new InboxLease({
      ...{ inbox: this.store.inbox, leaseMs: opts.inboxLeaseMs ?? inboxLeaseMs(this.store, this.config) },
      ...{ owner: this.config.agent.name, now: this.now, log: this.log, known: jobs.knows, cancels: this },
      recover: (events) => this.intake.beforeReplay(events, this.opts.tasks),
      claimed: (events) => this.hold.draining || this.handle({ type: 'inbox_replayed', events }),
    });
  }

  private effectModules() {
    const { staging, launcher, folds, turns, spending, outcomes, steering, compactor } = this;
    return { staging, launcher, folds, turns, spending, outcomes, steering, compactor };
  }

  /** Handles one supervisor event, then lets the reactor step (prep, gate, checkpoint). */
  private handle(event: SupervisorEvent): void {
    dispatchSupervisorEvent(this.handlers, event);
    this.reactor.schedule();
  }

  /** The live conversation turns, wired to tool serving, admission, accounting and the job table. */
  private turnWorkers(): TurnWorkers {
    const [caps, service] = [this.hostCapabilities(), this.toolService()];
    return new TurnWorkers({
      ...{ children: this.children, log: this.log, now: this.now, tracer: this.opts.tracer ?? null },
      toolHost: (turn) => buildToolHost(caps, turn),
      ...{ serveTool: (turn, frame) => serveToolRequest(service, turn, frame), journal: this.store.journal },
      onProgress: (turn, event, fields) => this.progress(turn, event, fields),
      admit: (turn, frame) =>
        turn.handle.send({ type: 'budget_grant', id: frame.id, ...this.spending.grant(turn, frame.estimate) }),
      onUsage: (turn, spent) => this.spending.turnUsage(turn, spent),
      onTurnDone: (turn, result) => this.handle({ type: 'turn_done', turn, result }),
      onExit: (turn, ended, exit) => this.handle({ type: 'worker_exit', turn, ended, ...exit }),
    });
  }

  private steeringDeps(): SteeringDeps {
    return {
      ...{ config: this.config, log: this.log, now: this.now, conversations: this.conversations },
      pending: (ctx) => ({
        // A message being prepared is still waiting: it goes before a continuation.
        queued: pendingContexts(this.jobs.jobs).has(ctx) || this.intake.accepting(ctx),
        live: [...this.jobs.jobs.values()].some((j) => j.ctx === ctx && ['spawning', 'running'].includes(j.state)),
      }),
      paused: () => this.hold.paused,
      draining: () => this.hold.draining,
      restored: () => this.restored,
      think: (job) => this.thinks.run(job),
      engine: (eventId, type, fields) => this.opts.tasks?.onEngineEvent(eventId, type, fields),
    };
  }

  /** Claims every pending inbox event and re-queues them in order, with their original ids (conversations: lazily). */
  async restore(): Promise<{ generation: number; pending: number }> {
    await this.conversations.restore();
    await this.spending.budget.load();
    await this.turnIds.reserve();
    await this.memoryKeys.start();
    await this.subagents.restore();
    await this.timers.start();
    const lost = (ctx: string) => this.handle({ type: 'lease_lost', ctx });
    const pending = await this.lease.restore(this.store, lost, this.subagents.leases); // its own: a subagent's events
    const generation = this.store.generation;
    this.log.info('restore.done', { generation, pending: pending.length, conversations: this.conversations.size });
    // A goal whose next continuation a crash or a drain lost picks up again (one already queued replays instead).
    this.steering.kickAll();
    if (pending.length === 0) this.pool.fill();
    this.restored = true;
    return { generation, pending: pending.length };
  }

  /**
   * Writes the event durably, then queues it; resolves once the commit stuck. A duplicate (the principal's
   * `dedupe_key` was accepted before) queues nothing and resolves with the record that holds the key.
   */
  async accept(input: AcceptInput): Promise<Accepted> {
    const ctx = input.context_id;
    // Until it is queued, the conversation counts as having a message waiting (no goal continuation overtakes);
    // one that would create a conversation past its principal's quota is refused here (QuotaExceeded).
    const onItsWay = this.intake.beginAccept(ctx, input.principal);
    let accepted: Accepted;
    let event: InboxEvent;
    try {
      if (!this.conversations.isResident(ctx) || this.store.leases) await this.conversations.fetch(ctx); // evicted; replicas: re-read
      // The mode is captured here, at the request boundary: a later switch never changes this message's turn.
      event = inboxEvent(input, this.now(), input.mode ?? this.steering.modeOf(ctx));
      const task = this.opts.tasks?.taskFor?.(event) ?? undefined;
      accepted = await this.commits.accept('accept', () => this.store.inbox.accept(event, task));
    } finally {
      onItsWay.release();
    }
    if (!accepted.created) {
      this.log.info('inbox.duplicate', { inbox_event: accepted.record.id, status: accepted.record.status, ctx });
      return accepted;
    }
    this.killPoint('inbox.after_put');
    this.log.info('inbox.accepted', { inbox_event: event.id, kind: event.kind, ctx: input.context_id });
    this.handle({ type: 'inbox_accepted', event });
    return accepted;
  }

  /**
   * Resolves with the event's outcome once its turn has folded back (at once when it already has). An unknown
   * event, or one a drain abandoned, resolves with a `failed` / `cancelled` outcome that says so.
   */
  outcomeOf(eventId: string): Promise<InboxOutcome> {
    const [known, shared] = [isPending(this.jobs.jobs, eventId), this.store.leases !== undefined];
    return this.outcomes.of(eventId, { known, inbox: this.store.inbox, draining: this.hold.draining, shared });
  }

  /** The conversations a think child works on (a compaction, a preflight): no message of them starts meanwhile. */
  private thinking(): Set<string> {
    return new Set([...this.thinks.busyContexts(), ...this.compactor.busyContexts()]);
  }

  /** True when nothing is running and nothing waiting can start (none waits, or paused, or draining). */
  get idle(): boolean {
    return idle(this.jobs.jobs, { paused: this.hold.paused, draining: this.hold.draining }, this.thinking());
  }

  /** Restored, not draining, not shedding, and the store takes commits: the instance takes new work (`/readyz`). */
  get ready(): boolean {
    return this.restored && !this.hold.draining && this.hold.pressure !== 'shed' && !this.commits.failing;
  }

  /** The pressure gate (reference §4): `shed` starts no turn, `warn` no goal continuation; running turns go on. */
  setPressure(level: PressureLevel, cause: PressureCause | null = null): void {
    this.hold.pressure = level;
    this.hold.pressureCause = cause;
    this.reactor.schedule();
  }

  /** Resolves once the supervisor is idle. */
  async whenIdle(): Promise<void> {
    await this.reactor.until(() => this.idle);
  }

  /** A read-only view of a resident conversation (tests, embedding, status); `intake.load` brings an evicted one. */
  conversation(id: string): Conversation | undefined {
    return this.conversations.get(id);
  }

  /** Operator hold: accepted messages queue, no new turn starts; running turns go on. */
  pause(): void {
    this.handle({ type: 'pause' });
  }
  resume(): void {
    this.handle({ type: 'resume' });
  }

  /** Process ids of the spare workers kept warm. */
  get warmWorkerPids(): number[] {
    return this.pool.sparePids;
  }

  /** A snapshot of the instance, or with `principal` of that principal's work only (a user turn's `status`). */
  status(principal?: string): Record<string, unknown> {
    return instanceStatus(this.statusParts(), principal);
  }

  private statusParts(): StatusParts {
    const { store, jobs, conversations, hold, subagents, timers, pool, config, opts, spending } = this;
    const workers = () => ({ spare: pool.sparePids.length, target: pool.target, max: config.agent.max_parallel_turns });
    const parts = { name: config.agent.name, generation: store.generation, jobs: jobs.jobs, conversations, timers };
    return { ...parts, hold, subagents, workers, ports: opts.ports, budget: () => spending.budget.instanceSummary() };
  }

  /** Cancels the job answering inbox event `eventId`: a running turn is cancelled, a waiting one never starts. */
  cancelEvent(eventId: string, reason: string): void {
    this.handle({ type: 'cancel', eventId, reason });
  }

  /** Cancels the live turn of a conversation: the worker seals and reports; its process group dies after a grace. */
  cancel(ctx: string, reason = 'cancelled by operator'): boolean {
    const running = [...this.jobs.jobs.values()].filter((j) => j.ctx === ctx && j.state === 'running');
    for (const job of running) this.handle({ type: 'cancel', eventId: job.eventId, reason });
    return running.length > 0;
  }

  /** Starts no new turns; waits up to `timeoutMs` for live ones, then kills the rest (their events replay later). */
  async drain(timeoutMs: number, reason = 'stop'): Promise<{ abandoned: number; queued: number }> {
    this.hold.draining = true;
    this.lease.stop();
    const live = liveTurns(this.jobs.jobs);
    this.log.info('drain.start', { reason, live, queued: statusCounts(this.jobs.jobs).queued });
    const timedOut = await this.reactor.untilWithin(() => liveWork(this.jobs.jobs, this.thinking()) === 0, timeoutMs);
    const abandoned = timedOut ? drainVictims(this.jobs.jobs).filter((j) => j.state === 'running').length : 0;
    if (timedOut) this.handle({ type: 'drain_abandon' });
    await this.untilNoLiveWork();
    this.subagents.stop();
    await this.children.close();
    this.spending.waits.stop();
    await this.timers.stop();
    this.checkpoint();
    // What the checkpoint and the last folds enqueued is durable before the drain reports.
    await settledWrites(this.durable);
    const left = waitingJobs(this.jobs.jobs);
    // Waiters for what will not fold here now (a queued job, an event leased elsewhere) hear it; a fold's, its fold.
    this.outcomes.resolveAll(ABANDONED, (id) => left.some((j) => j.eventId === id) || !this.jobs.jobs.has(id));
    this.log.info('drain.done', { abandoned, queued: left.length });
    return { abandoned, queued: left.length };
  }

  /** A worker's progress: coarse activity, or a body / tool-card event for the task's live feed. */
  private progress(turn: LiveTurn, event: string, fields: Record<string, unknown>): void {
    publishProgress({ board: this.activity, log: this.log, tasks: this.opts.tasks }, turn, event, fields, this.now());
  }

  /** What every turn's tool host is built from (once per supervisor; the host itself once per turn). */
  private hostCapabilities() {
    return hostCapabilities({
      ...{ config: this.config, store: this.store, log: this.log, now: this.now, tasks: this.opts.tasks },
      ...{ conversations: this.conversations, thinks: this.thinks, staging: this.staging, subagents: this.subagents },
      ...{ compactor: this.compactor, steering: this.steering, watchers: this.reactor.watchers },
      wake: () => this.reactor.schedule(),
      ports: this.opts.ports,
      status: (principal) => this.status(principal),
    });
  }

  private toolService(): ToolServiceDeps {
    return {
      progress: (t, event, fields) => this.progress(t, event, fields),
      ...{ log: this.log, now: this.now, tools: this.opts.tools, config: this.config, timers: this.timers },
      ...(this.opts.tasks ? { tasks: this.opts.tasks } : {}),
    };
  }

  private untilNoLiveWork(): Promise<void> {
    return this.reactor.until(() => liveWork(this.jobs.jobs, this.thinking()) === 0);
  }

  /** One reactor step: prep and launch what the job table allows, then checkpoint. */
  private tick(): void {
    const at = { ...this.hold, maxParallel: this.config.agent.max_parallel_turns, thinking: this.thinking() };
    if (this.jobs.step(at) > 0) setImmediate(() => this.pool.fill());
    this.checkpoint();
  }

  private checkpoint(): void {
    this.conversations.checkpoint();
    this.spending.budget.flush();
  }

  private killPoint(name: string): void {
    if (this.opts.killAt?.has(name)) process.kill(process.pid, 'SIGKILL');
  }
}
