// The job table at work: it holds the table and what each job runs on, applies job events through `transition`
// and carries out their effects; one reactor step preps, gates and retries from it. The only writer of the table.
import type { Spending } from '../budget/spending.js';
import type { Compactor } from '../context/compactor.js';
import type { ConversationBook } from '../context/conversationBook.js';
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import type { TurnJob } from '../domain/job.js';
import type { ActivityBoard } from '../obs/activityBoard.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { Staging } from '../prep/staging.js';
import type { TurnResult } from '../protocol/frames.js';
import type { Steering } from '../steering/steering.js';
import type { Store } from '../store/store.js';
import { unparkAll } from '../tools/serving.js';
import { foldRetryDelay, transientSpawnCode } from './backoff.js';
import { deterministicResult, failedResult, kindForStatus } from './fold.js';
import { ABANDONED, type FoldBack, logTurnDone, type Outcomes } from './foldBack.js';
import {
  drainVictims,
  gatePicks,
  type Hold,
  nextWaitWake,
  prepLine,
  pruneJobs,
  retryingFold,
  statusCounts,
} from './jobQueries.js';
import { addJob, applyJobEvent, type Job, type JobEffect, type JobEvent, type JobTable } from './jobTable.js';
import { admitJob, guarded } from './launchSteps.js';
import { keepsLease, loseConversation, Rereads } from './leaseLoss.js';
import type { SupervisorEvent, SupervisorHandlers } from './reactor.js';
import type { ThinkChildren } from './thinkChildren.js';
import type { TurnLauncher } from './turnLaunch.js';
import type { LiveTurn, TurnWorkers } from './turnWorkers.js';

/** What came with the job event that an effect may need: the turn's result, its worker, a reply, an outcome. */
export interface EffectData {
  result?: TurnResult;
  turn?: LiveTurn;
  /** Staging's answer (a preflight `status` or `clarify`). */
  reply?: string;
  /** The committed fold's outcome. */
  outcome?: InboxOutcome;
  /** Abandoned because another replica holds the conversation now: its waiters follow the store instead. */
  handedOver?: boolean;
}

/** Everything an effect can be given: the job (as it now is), its input, the job event that caused it (none at add). */
export interface EffectCall<K extends JobEffect['kind']> {
  job: Job;
  input: TurnJob;
  effect: Extract<JobEffect, { kind: K }>;
  cause: JobEvent | null;
  data: EffectData;
}

/** A handler for every effect kind: a missing one does not compile. */
export type EffectHandlers = { [K in JobEffect['kind']]: (call: EffectCall<K>) => void };

export class Jobs {
  private table: JobTable = new Map();
  /** What each job runs on (its event, text, what staging found): data, never its state. */
  private readonly inputs = new Map<string, TurnJob>();
  private readonly rereads = new Rereads();
  private handlers: EffectHandlers | undefined;
  private context: EffectContext | undefined;

  constructor(private readonly deps: { log: Logger; now(): number }) {}

  /** What the effects act on (set once, after the modules it holds are built). */
  bind(context: EffectContext): void {
    this.context = context;
    this.handlers = effectHandlers(context);
  }

  get jobs(): JobTable {
    return this.table;
  }

  input(eventId: string): TurnJob | undefined {
    return this.inputs.get(eventId);
  }

  /** Adds a queued job for an accepted or replayed event; false when the event already has one. */
  add(event: InboxEvent, how: 'accepted' | 'replayed'): boolean {
    const { context_id: ctx, text, msg_depth: depth = 0 } = event.payload;
    const input = { eventId: event.id, ctx, principal: event.principal };
    const step = addJob(
      this.table,
      { ...input, continuation: event.kind === 'goal_continuation' },
      this.deps.now(),
      how,
    );
    if (step.refused) return false;
    this.table = step.table;
    this.inputs.set(event.id, { event, ctx, principal: event.principal, text, depth });
    this.run(step.job, null, step.effects, {});
    return true;
  }

  /** Applies `event` to the job answering `eventId` and carries out its effects; false when it does not apply. */
  apply(eventId: string, event: JobEvent, data: EffectData = {}): boolean {
    const step = applyJobEvent(this.table, eventId, event, this.deps.now());
    if (step.refused) {
      this.deps.log.debug('job.refused', {
        inbox_event: eventId,
        state: step.state,
        event: step.event,
        reason: step.reason,
      });
      return false;
    }
    this.table = step.table;
    this.run(step.job, event, step.effects, data);
    return true;
  }

  /** Applies `event` to every job in `state`. */
  applyAll(state: Job['state'], event: JobEvent): void {
    for (const job of [...this.table.values()]) if (job.state === state) this.apply(job.eventId, event);
  }

  /** One reactor step: prep what may be prepared, launch what the gate picks, retry refused folds, arm the wait. */
  step(at: Hold & { maxParallel: number; thinking: ReadonlySet<string> }): number {
    const c = this.context;
    if (!c) return 0;
    const now = this.deps.now();
    for (const job of prepLine(this.table, now, at, at.thinking)) {
      const input = this.inputs.get(job.eventId);
      if (!input || !this.rereads.ready(c, job.eventId, job.ctx)) continue;
      this.apply(
        job.eventId,
        guarded(c.log, job.eventId, () => c.launcher.prep(input)),
      );
    }
    const picks = gatePicks(this.table, this.deps.now(), at);
    for (const job of picks) this.apply(job.eventId, { type: 'gate_picked' });
    for (const job of this.table.values()) {
      // Only once its backoff passed: under a busy reactor a retry at every step hammers a full disk.
      const due = now >= (job.wait?.untilMs ?? 0);
      if (retryingFold(job) && due) c.folds.retry(job.eventId);
    }
    c.spending.waits.armFor(nextWaitWake(this.table, now, at));
    this.prune();
    return picks.length;
  }

  /** Queued, running or folding here; an abandoned job's event is not (a later claim may queue it again). */
  knows = (eventId: string): boolean => (this.table.get(eventId)?.state ?? 'abandoned') !== 'abandoned';

  /** Drops a job whose fold the lease fence refused: another replica runs its event (interfaces reference §4.4). */
  drop(eventId: string): void {
    if (!this.table.has(eventId)) return;
    const kept = new Map(this.table);
    kept.delete(eventId);
    this.table = kept;
    this.inputs.delete(eventId);
  }

  /** Forgets finished jobs whose worker is gone. */
  private prune(): void {
    const kept = pruneJobs(this.table);
    if (kept === this.table) return;
    for (const id of this.inputs.keys()) if (!kept.has(id)) this.inputs.delete(id);
    this.rereads.keep((id) => kept.has(id));
    this.table = kept;
  }

  private run(job: Job, cause: JobEvent | null, effects: JobEffect[], data: EffectData): void {
    const input = this.inputs.get(job.eventId);
    if (!input || !this.handlers) return;
    for (const effect of effects) {
      const handler = this.handlers[effect.kind] as (call: EffectCall<typeof effect.kind>) => void;
      handler({ job, input, effect, cause, data });
    }
  }
}

/** What the effects act on: the modules that hold a job's resources, and the table for the next step. */
export interface EffectContext {
  log: Logger;
  store: Store;
  now(): number;
  wake(): void;
  metrics: Metrics;
  jobs: Jobs;
  staging: Staging;
  launcher: TurnLauncher;
  folds: FoldBack;
  conversations: ConversationBook;
  turns: TurnWorkers;
  spending: Spending;
  outcomes: Outcomes;
  steering: Steering;
  compactor: Compactor;
}

/** The gauges the job table answers: what waits for the gate, what runs, and both (accepted, not answered). */
export function registerJobGauges(m: Metrics, jobs: Jobs): void {
  const queued = () => statusCounts(jobs.jobs).queued;
  const running = () => statusCounts(jobs.jobs).running_turns;
  m.gauge('agentd_turns_queued', 'Turns waiting for the dispatch gate.', queued);
  m.gauge('agentd_turns_running', 'Conversation turns running now.', running);
  m.gauge('agentd_inbox_pending', 'Accepted events not answered yet.', () => queued() + running());
}

/** The effect handlers: each carries out one kind of effect; a launch step answers with the next job event. */
function effectHandlers(c: EffectContext): EffectHandlers {
  const conv = (job: Job) => c.conversations.open(job.ctx, job.principal);
  return {
    wake: () => c.wake(),
    start_staging: ({ job, input }) => c.staging.start(input, conv(job)),
    kill_preflight: ({ job }) => c.staging.stop(job.eventId),
    build_and_admit: ({ job, input }) => admitJob(c, job.eventId, input, () => keepsLease(c, job.ctx)),
    // The step arms the one timer for the earliest wait; this logs the wait (once per reason) the table took.
    arm_wait: ({ job, effect }) => {
      c.spending.waits.defer(job.ctx, job.eventId, effect.untilMs, job.wait?.reason ?? '');
      c.wake();
    },
    forget_wait: ({ job }) => c.spending.waits.done(job.eventId),
    spawn: ({ job, input }) =>
      void c.jobs.apply(
        job.eventId,
        guarded(c.log, job.eventId, () => c.launcher.spawn(input)),
      ),
    release_reservation: ({ job }) => c.launcher.release(job.eventId),
    spawn_retry: ({ job, effect }) => {
      const { attempt, delayMs, code } = effect;
      c.log.warn('turn.spawn_retry', { ctx: job.ctx, inbox_event: job.eventId, attempt, delay_ms: delayMs, code });
      c.wake();
    },
    fold: (call) => foldJob(c, call),
    // The step retries a refused fold once due; its wait keeps a timer armed (nextWaitWake) until then.
    retry_fold: ({ job }) => {
      const delayMs = foldRetryDelay(job.foldAttempts);
      c.log.debug('store.checkpoint.retry', {
        ctx: job.ctx,
        inbox_event: job.eventId,
        attempt: job.foldAttempts,
        delay_ms: delayMs,
      });
      c.wake();
    },
    send_cancel: ({ job, effect }) => job.turn && c.turns.cancel(job.turn.node, effect.reason),
    kill_worker: ({ job, data }) =>
      job.turn && c.turns.kill(job.turn.node, data.handedOver ? 'lease lost' : 'drain timeout'),
    announce: ({ input, data }) => {
      const outcome = data.outcome;
      if (!outcome) return;
      c.steering.afterTurn(
        data.result ? { event: input.event, outcome, result: data.result } : { event: input.event, outcome },
      );
    },
    announce_abandoned: ({ job, data }) => data.handedOver || c.outcomes.resolve(job.eventId, ABANDONED),
  };
}

/** Folds a job: its turn's result, staging's reply, the budget's refusal, or a result the supervisor makes. */
function foldJob(c: EffectContext, { job, input, effect, cause, data }: EffectCall<'fold'>): void {
  const conv = c.conversations.open(job.ctx, job.principal);
  switch (effect.from) {
    case 'turn': {
      // A cancelled turn folds at its worker's exit, with the result its turn_done left on the turn.
      const result = data.result ?? data.turn?.result;
      if (data.turn && result) settle(c, data.turn, result);
      return;
    }
    case 'reply':
      c.folds.finish(input, conv, deterministicResult(data.reply ?? '', c.now()), true);
      return;
    case 'not_run':
      if (cause?.type === 'budget_refused') c.folds.notRun(input, conv, cause.reason, cause.admission);
      else c.folds.notRun(input, conv, 'refused', 'refuse');
      return;
    case 'synthetic': {
      const failed = failedResult(effect.end.error, effect.end.status, effect.end.kind);
      if (!data.turn) {
        c.folds.withoutTurn(input, conv, failed);
        return;
      }
      c.log.warn('turn.failed', { ctx: job.ctx, node: data.turn.node, err: effect.end.error });
      // No terminal frame: the turn is charged what its usage frames reported (reference §15, going beyond it).
      settle(c, data.turn, { ...failed, usage: { ...data.turn.usage } });
    }
  }
}

/** A turn's result: logged, counted, its reservation settled, folded, and compaction considered. */
function settle(c: EffectContext, turn: LiveTurn, result: TurnResult): void {
  logTurnDone(c.log, { node: turn.node, ctx: turn.job.ctx, turn: turn.turnId }, result);
  c.metrics.turns.inc({ status: result.status });
  c.metrics.turnDuration.observe({ status: result.status }, (c.now() - turn.startedAt) / 1000);
  turn.span?.set({
    'gen_ai.usage.input_tokens': result.usage.input_tokens,
    'gen_ai.usage.output_tokens': result.usage.output_tokens,
  });
  turn.span?.end(result.status === 'completed' ? undefined : result.status);
  c.spending.settleTurn(turn, result.usage);
  const conv = c.conversations.open(turn.job.ctx, turn.job.principal);
  // The notes the turn was built with belong to its fold: written with its inbox-done, never before.
  c.conversations.holdForFold(conv, turn.job.event.id);
  c.conversations.append(conv, turn.notes);
  c.folds.finish(turn.job, conv, result);
  c.compactor.afterTurn(turn.job.ctx);
}

/** What the supervisor's event handlers touch besides the effects' modules. */
export interface HandlerContext extends EffectContext {
  /** The operator's hold and the drain: read by every step. */
  hold: Hold;
  thinks: ThinkChildren;
  activity: ActivityBoard;
}

/** The reactor's handler for each supervisor event: each turns it into job events on the table. */
export function supervisorHandlers(c: HandlerContext): SupervisorHandlers {
  const { jobs } = c;
  return {
    inbox_accepted: (e) => {
      c.turns.traceAccept(e.event);
      // Replicas: a message whose conversation another replica holds is run by that one (its claim takes it).
      if (c.store.leases?.holds(e.event.payload.context_id) ?? true) jobs.add(e.event, 'accepted');
    },
    inbox_replayed: (e) => {
      for (const event of e.events) {
        c.turns.traceAccept(event);
        jobs.add(event, 'replayed');
      }
    },
    staging_done: (e) =>
      e.reply === null
        ? jobs.apply(e.eventId, { type: 'prepared' })
        : jobs.apply(e.eventId, { type: 'answered' }, { reply: e.reply }),
    turn_done: (e) => jobs.apply(e.turn.job.event.id, { type: 'turn_done' }, { result: e.result, turn: e.turn }),
    worker_exit: (e) => workerExit(c, e),
    budget_room: () => jobs.applyAll('budget_wait', { type: 'budget_room' }),
    cancel: (e) => jobs.apply(e.eventId, { type: 'cancel', reason: e.reason }),
    drain_abandon: () => {
      for (const job of drainVictims(jobs.jobs)) jobs.apply(job.eventId, { type: 'drain_abandon' });
      c.thinks.killAll();
    },
    pause: () => {
      if (c.hold.paused) return;
      c.hold.paused = true;
      const { queued, running_turns } = statusCounts(jobs.jobs);
      c.log.info('agent.paused', { queued, live: running_turns });
    },
    resume: () => {
      if (!c.hold.paused) return;
      c.hold.paused = false;
      c.log.info('agent.resumed', { queued: statusCounts(jobs.jobs).queued });
      c.steering.kickAll();
    },
    fold_committed: (e) => {
      const data = { outcome: e.outcome, ...(e.result ? { result: e.result } : {}) };
      jobs.apply(e.eventId, { type: 'fold_committed' }, data);
    },
    fold_failed: (e) =>
      e.fencedCtx === undefined
        ? jobs.apply(e.eventId, { type: 'fold_failed' })
        : loseConversation(c, e.fencedCtx, e.eventId),
    lease_lost: (e) => loseConversation(c, e.ctx),
  };
}

/** A turn worker is gone: what it held is released, and its job hears it (a turn without turn_done fails). */
function workerExit(c: HandlerContext, e: Extract<SupervisorEvent, { type: 'worker_exit' }>): void {
  const { turn } = e;
  // A turn a drain abandoned is still charged what it reported (its event replays later).
  c.spending.settleTurn(turn, turn.usage);
  unparkAll(turn);
  if (c.activity.remove(turn.node)) c.log.debug('activity.removed', { node: turn.node, ctx: turn.job.ctx });
  c.thinks.killChildrenOf(turn.node);
  // A worker the machine refused to start (EMFILE, …) never ran its turn: the message waits and is tried again.
  if (!e.ended && transientSpawnCode(e.spawnError)) {
    const error = `worker spawn failed: ${e.spawnError}`;
    c.jobs.apply(turn.job.event.id, { type: 'spawn_failed', code: e.spawnError, error }, { turn });
    return;
  }
  const ended = e.ended ? { ...e.ended, kind: e.ended.kind ?? kindForStatus(e.ended.status) } : undefined;
  const gone = { type: 'worker_gone' as const, code: e.code, signal: e.signal, ...(ended ? { endReason: ended } : {}) };
  c.jobs.apply(turn.job.event.id, gone, { turn });
}
