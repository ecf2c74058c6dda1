// The supervisor: one event-driven reactor that owns durable state, queues turns, spawns a worker per turn and
// folds results back. The only writer of the store. It never calls the model for a turn.
import type { Config } from '../config/types.js';
import { appendMessage, hasUserMessageForEvent, newConversation } from '../context/conversation.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { dispatchFrame, type FrameHandlers, type TurnResult, type UpFrame } from '../protocol/frames.js';
import type { Conversation, InboxEvent, InboxOutcome, Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import { internalToolDefs } from '../tools/internalContracts.js';
import type { InternalToolHost } from '../tools/internalTools.js';
import { nextDispatchable, type TurnJob } from './dispatch.js';
import { failedResult, planFold } from './fold.js';
import type { LiveTurn } from './liveTurn.js';
import { serveToolRequest, unparkAll } from './toolRequests.js';
import { buildTurnPayload } from './turnBuild.js';
import { defaultWorkerEntry, type WorkerEntry, type WorkerHandle } from './workerHandle.js';
import { WorkerPool } from './workerPool.js';

export interface SupervisorOptions {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  workerEntry?: WorkerEntry;
  /** Spare workers kept started (default `agent.warm_workers`); 0 spawns each worker on demand. */
  warmWorkers?: number;
  now?: () => number;
  /** Test-only crash points (`inbox.after_put`, `fold.before_commit`): the process SIGKILLs itself there. */
  killAt?: ReadonlySet<string>;
}

/** A message to accept into the durable inbox. */
export interface AcceptInput {
  context_id: string;
  text: string;
  principal: string | null;
  dedupe_key?: string;
}

/** Grace between a cancel frame and the killpg, and after the deadline before the backstop kill. */
const CANCEL_GRACE_MS = 2_000;
const DEADLINE_GRACE_MS = 5_000;

export class Supervisor {
  private readonly config: Readonly<Config>;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly pool: WorkerPool;
  private readonly now: () => number;
  private readonly queue: TurnJob[] = [];
  private readonly live = new Map<number, LiveTurn>();
  private readonly conversations = new Map<string, Conversation>();
  private readonly dirty = new Set<string>();
  private readonly waiters = new Map<string, Array<(o: InboxOutcome) => void>>();
  private readonly changeWaiters: Array<() => void> = [];
  private readonly toolHost: InternalToolHost;
  private nextNode = 1;
  private tickScheduled = false;
  private draining = false;
  private paused = false;

  constructor(private readonly opts: SupervisorOptions) {
    this.config = opts.config;
    this.store = opts.store;
    this.log = opts.log;
    this.pool = new WorkerPool(
      opts.workerEntry ?? defaultWorkerEntry(),
      opts.warmWorkers ?? this.config.agent.warm_workers,
    );
    this.now = opts.now ?? Date.now;
    this.toolHost = {
      now: this.now,
      memory: this.store,
      conversation: (id) => this.conversationFor(id, null),
      markDirty: (id) => this.dirty.add(id),
      planMaxItems: this.config.context.plan.max_items,
      onPlanUpdated: (ctx, op, progress) => this.log.info('plan.updated', { ctx, op, progress }),
    };
  }

  /** Loads conversations and re-queues every pending inbox event in order, with its original id. */
  restore(): { generation: number; pending: number } {
    for (const c of this.store.loadConversations()) this.conversations.set(c.id, c);
    const pending = this.store.pendingInbox();
    for (const event of pending) this.enqueue(event);
    const generation = this.store.generation;
    this.log.info('restore.done', { generation, pending: pending.length, conversations: this.conversations.size });
    this.scheduleTick();
    if (pending.length === 0) this.pool.fill();
    return { generation, pending: pending.length };
  }

  /** Writes the event durably, then queues it. Returns null when `dedupe_key` was already accepted. */
  accept(input: AcceptInput): InboxEvent | null {
    const event: InboxEvent = {
      id: newUlid(this.now()),
      kind: 'a2a_message',
      ts: this.now(),
      principal: input.principal,
      payload: { context_id: input.context_id, text: input.text },
    };
    if (input.dedupe_key !== undefined) event.dedupe_key = input.dedupe_key;
    if (!this.store.acceptInbox(event)) return null;
    this.killPoint('inbox.after_put');
    this.log.info('inbox.accepted', { inbox_event: event.id, kind: event.kind, ctx: input.context_id });
    this.enqueue(event);
    this.scheduleTick();
    return event;
  }

  /** Resolves with the event's outcome once its turn has folded back. */
  outcomeOf(eventId: string): Promise<InboxOutcome> {
    return new Promise((resolve) => {
      const list = this.waiters.get(eventId) ?? [];
      list.push(resolve);
      this.waiters.set(eventId, list);
    });
  }

  /** True when nothing is queued or running. */
  get idle(): boolean {
    return this.queue.length === 0 && this.live.size === 0;
  }

  /** Resolves once nothing is queued or running. */
  async whenIdle(): Promise<void> {
    while (!this.idle) await this.nextTick();
  }

  /** A read-only view of a conversation (tests, embedding, status). */
  conversation(id: string): Conversation | undefined {
    return this.conversations.get(id);
  }

  /** Operator hold: accepted messages queue, no new turn starts; running turns go on. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.log.info('agent.paused', { queued: this.queue.length, live: this.live.size });
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.log.info('agent.resumed', { queued: this.queue.length });
    this.scheduleTick();
  }

  /** Process ids of the spare workers kept warm. */
  get warmWorkerPids(): number[] {
    return this.pool.sparePids;
  }

  /** Cancels the live turn of a conversation: the worker seals and reports; its process group dies after a grace. */
  cancel(ctx: string, reason = 'cancelled by operator'): boolean {
    let found = false;
    for (const turn of this.live.values()) {
      if (turn.job.ctx !== ctx || turn.settled) continue;
      found = true;
      turn.endReason = { status: 'cancelled', error: reason };
      turn.handle.send({ type: 'cancel', reason });
      turn.timers.push(setTimeout(() => this.killTurn(turn, 'cancel grace elapsed'), CANCEL_GRACE_MS));
    }
    return found;
  }

  /** Starts no new turns; waits up to `timeoutMs` for live ones, then kills the rest (their events replay later). */
  async drain(timeoutMs: number): Promise<{ abandoned: number }> {
    this.draining = true;
    this.log.info('drain.start', { live: this.live.size, queued: this.queue.length });
    const timedOut = await Promise.race([
      this.untilNoLiveTurns().then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), timeoutMs).unref()),
    ]);
    let abandoned = 0;
    if (timedOut) {
      for (const turn of this.live.values()) {
        turn.abandoned = true;
        this.killTurn(turn, 'drain timeout');
        abandoned++;
      }
      await this.untilNoLiveTurns();
    }
    this.pool.close();
    this.checkpoint();
    this.log.info('drain.done', { abandoned });
    return { abandoned };
  }

  private async untilNoLiveTurns(): Promise<void> {
    while (this.live.size > 0) await this.nextTick();
  }

  /** Resolves after the next reactor step (every state change schedules one). */
  private nextTick(): Promise<void> {
    return new Promise((resolve) => this.changeWaiters.push(resolve));
  }

  private enqueue(event: InboxEvent): void {
    this.queue.push({ event, ctx: event.payload.context_id, principal: event.principal, text: event.payload.text });
  }

  private scheduleTick(): void {
    if (this.tickScheduled) return;
    this.tickScheduled = true;
    queueMicrotask(() => {
      this.tickScheduled = false;
      this.tick();
    });
  }

  /** One reactor step: start what the gate allows, checkpoint dirty conversations, wake idle waiters. */
  private tick(): void {
    const busy = new Set([...this.live.values()].map((t) => t.job.ctx));
    const gate = { liveTurns: this.live.size, busy, paused: this.paused, draining: this.draining };
    const picks = nextDispatchable(this.queue, gate, this.config.agent.max_parallel_turns);
    const jobs = picks.map((i) => this.queue[i] as TurnJob);
    for (const i of [...picks].reverse()) this.queue.splice(i, 1);
    for (const job of jobs) this.startTurn(job);
    if (jobs.length > 0) setImmediate(() => this.pool.fill());
    this.checkpoint();
    for (const w of this.changeWaiters.splice(0)) w();
  }

  private checkpoint(): void {
    if (this.dirty.size === 0) return;
    const list = [...this.dirty].map((id) => this.conversations.get(id)).filter((c) => c !== undefined);
    this.dirty.clear();
    try {
      this.store.saveConversations(list);
    } catch (err) {
      this.log.error('store.checkpoint.fail', { err: describeError(err) });
    }
  }

  private conversationFor(id: string, principal: string | null): Conversation {
    let conv = this.conversations.get(id);
    if (!conv) {
      conv = newConversation(id, id === 'root' ? 'root' : 'conversation', principal, this.now());
      this.conversations.set(id, conv);
      this.dirty.add(id);
    }
    return conv;
  }

  private startTurn(job: TurnJob): void {
    const conv = this.conversationFor(job.ctx, job.principal);
    if (!hasUserMessageForEvent(conv, job.event.id)) {
      const user = { role: 'user' as const, text: job.text, event: job.event.id, ts: this.now() };
      appendMessage(conv, job.principal ? { ...user, principal: job.principal } : user, this.now());
      this.dirty.add(conv.id);
    }
    const turnId = `turn-${this.store.nextSequence('turn')}`;
    const tools = internalToolDefs();
    const memoryKeys = this.store.memoryList('', 32, this.now()).keys;
    const payload = buildTurnPayload({ config: this.config, conversation: conv, turnId, tools, memoryKeys });
    const node = this.nextNode++;
    let handle: WorkerHandle;
    try {
      handle = this.pool.take({
        onFrame: (frame) => this.onFrame(node, frame),
        onClose: (code, signal) => this.onClose(node, code, signal),
        onProtocolError: (message) => this.log.warn('loop.error', { node, ctx: job.ctx, err: message }),
      });
    } catch (err) {
      const message = describeError(err);
      this.log.error('turn.spawn.fail', { ctx: job.ctx, inbox_event: job.event.id, err: message });
      this.finishJob(job, conv, failedResult(`spawn failed: ${message}`));
      return;
    }
    const turn: LiveTurn = {
      node,
      job,
      turnId,
      handle,
      internal: new Set(payload.turn.internal),
      startedAt: this.now(),
      settled: false,
      endReason: null,
      abandoned: false,
      usage: { input_tokens: 0, output_tokens: 0 },
      parked: new Map(),
      timers: [],
    };
    const backstop = payload.limits.deadline_ms + DEADLINE_GRACE_MS;
    turn.timers.push(
      setTimeout(() => {
        turn.endReason = { status: 'deadline', error: 'the worker outlived its deadline' };
        this.killTurn(turn, 'deadline backstop');
      }, backstop),
    );
    this.live.set(node, turn);
    handle.send({ type: 'spawn', ...payload });
    conv.turns++;
    this.dirty.add(conv.id);
    this.log.info('turn.spawn', {
      ctx: job.ctx,
      node,
      worker_pid: handle.pid,
      turn: turnId,
      inbox_event: job.event.id,
    });
  }

  private onFrame(node: number, frame: UpFrame): void {
    const turn = this.live.get(node);
    if (!turn) return;
    const handlers: FrameHandlers<UpFrame> = {
      ready: () => {},
      pong: () => {},
      event: (f) => this.log.debug(f.event, { node, ctx: turn.job.ctx, ...f.fields }),
      usage: (f) => {
        turn.usage = { input_tokens: f.input_tokens, output_tokens: f.output_tokens };
      },
      failed: (f) => {
        turn.endReason = { status: 'failed', error: f.error };
        turn.handle.send({ type: 'cancel', reason: 'failed' });
      },
      tool_request: (f) =>
        serveToolRequest({ store: this.store, log: this.log, host: this.toolHost, now: this.now }, turn, f),
      budget_request: (f) => turn.handle.send({ type: 'budget_grant', id: f.id, ok: true, wait_ms: 0 }),
      turn_done: (f) => this.settle(turn, f.turn),
    };
    dispatchFrame(handlers, frame);
    this.scheduleTick();
  }

  private onClose(node: number, code: number | null, signal: NodeJS.Signals | null): void {
    const turn = this.live.get(node);
    if (!turn) return;
    this.log.info('child.exit', { node, worker_pid: turn.handle.pid, kind: 'turn', ctx: turn.job.ctx, code, signal });
    for (const t of turn.timers) clearTimeout(t);
    unparkAll(turn);
    if (!turn.settled && !turn.abandoned) {
      const outcome = code !== null ? `exit code ${code}` : `signal ${signal}`;
      const reason = turn.endReason ?? { status: 'failed', error: `worker exited without a result (${outcome})` };
      this.log.warn('turn.failed', { ctx: turn.job.ctx, node, err: reason.error });
      this.settle(turn, failedResult(reason.error, reason.status));
    }
    this.live.delete(node);
    this.scheduleTick();
  }

  private settle(turn: LiveTurn, result: TurnResult): void {
    if (turn.settled) return;
    turn.settled = true;
    const conv = this.conversationFor(turn.job.ctx, turn.job.principal);
    const { usage } = result;
    this.log.info('turn.done', {
      node: turn.node,
      ctx: turn.job.ctx,
      turn: turn.turnId,
      status: result.status,
      rounds: result.rounds,
      tool_calls: result.tool_calls,
      tokens: usage.input_tokens + usage.output_tokens,
      ...(result.error ? { err: result.error } : {}),
    });
    this.finishJob(turn.job, conv, result);
  }

  /** Folds a result into its conversation, checkpoints it, then marks the inbox event done. */
  private finishJob(job: TurnJob, conv: Conversation, result: TurnResult): void {
    const plan = planFold(result, this.now());
    for (const msg of plan.append) appendMessage(conv, msg, this.now());
    if (plan.outcome.reply) {
      const fields: Record<string, unknown> = { ctx: job.ctx, chars: plan.outcome.reply.length };
      if (this.config.observability.log_content) fields.text = plan.outcome.reply;
      this.log.info('turn.reply', fields);
    }
    if (plan.outcome.finish_status !== undefined) {
      this.log.info('root.finish', { ctx: job.ctx, status: plan.outcome.finish_status });
    }
    this.killPoint('fold.before_commit');
    this.dirty.delete(conv.id);
    try {
      this.store.completeInbox(job.event.id, plan.outcome, [conv]);
    } catch (err) {
      this.dirty.add(conv.id);
      this.log.error('store.checkpoint.fail', { ctx: job.ctx, inbox_event: job.event.id, err: describeError(err) });
    }
    const waiters = this.waiters.get(job.event.id) ?? [];
    this.waiters.delete(job.event.id);
    for (const w of waiters) w(plan.outcome);
  }

  /** SIGKILL a turn's process group; its close then folds (or, when abandoned, leaves the event pending). */
  private killTurn(turn: LiveTurn, reason: string): void {
    this.log.warn('turn.kill', { node: turn.node, ctx: turn.job.ctx, worker_pid: turn.handle.pid, reason });
    turn.handle.kill();
  }

  private killPoint(name: string): void {
    if (this.opts.killAt?.has(name)) process.kill(process.pid, 'SIGKILL');
  }
}
