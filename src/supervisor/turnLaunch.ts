// Preparing and launching a job's turn (reference §10.1): ownership and the user message before staging; then, once
// the gate picked it, the snapshot, dispatch admission against the budget and the worker. Each step answers with
// the job event it leads to; the job table decides what follows. What it holds between admission and spawn is
// the built payload and the reservation (resources), never the job's state.
import type { Admission, Reservation } from '../budget/governor.js';
import type { BudgetLedger } from '../budget/ledger.js';
import type { BudgetWaits } from '../budget/waits.js';
import type { Config } from '../config/types.js';
import type { ConversationBook } from '../context/conversationBook.js';
import { estimateConversation, estimateText } from '../context/estimate.js';
import type { Conversation } from '../domain/conversation.js';
import type { TurnJob } from '../domain/job.js';
import { ownershipRefusal } from '../domain/principal.js';
import { describeError } from '../errors.js';
import { specForRef } from '../intel/models.js';
import type { Logger } from '../obs/log.js';
import { DROPPED_CONTINUATION, type Steering } from '../steering/steering.js';
import type { SequenceBlock } from '../store/sequenceBlock.js';
import { spawnErrorCode, transientSpawnCode } from './backoff.js';
import type { JobEvent } from './jobTable.js';
import { type SnapshotDeps, snapshotPayload, type TurnSnapshot } from './turnSnapshot.js';
import type { TurnWorkers } from './turnWorkers.js';

/** Room the dispatch estimate leaves for the answer (reference §10.1). */
const ANSWER_ALLOWANCE = 4096;
/** How long a turn waits before it asks again when the fleet's budget window could not be read. */
const UNREADABLE_WAIT_MS = 1_000;

export interface LaunchDeps {
  config: Readonly<Config>;
  /** Turn ids, unique across restarts, drawn inside the tick. */
  turnIds: SequenceBlock;
  log: Logger;
  now(): number;
  conversations: ConversationBook;
  turns: TurnWorkers;
  /** What the turn's snapshot (system prompt, slice, tools, route, mode) is built from. */
  snapshot: SnapshotDeps;
  budget: BudgetLedger;
  waits: BudgetWaits;
  /** A turn the budget refused (metrics). */
  onRefused(): void;
  /** Whether the job has anything to stage (preflight, knowledge, skills). */
  wantsStaging(job: TurnJob, conv: Conversation): boolean;
  steering: Steering;
  /** A message (not a goal continuation) for `ctx` waits before the gate. */
  messageWaiting(ctx: string): boolean;
}

/** An admitted turn between admission and spawn. */
interface Admitted extends TurnSnapshot {
  reservation: Reservation | null;
}

export class TurnLauncher {
  private readonly admitted = new Map<string, Admitted>();

  constructor(private readonly deps: LaunchDeps) {}

  /** Checks ownership and staleness and appends the message (once); then the job stages or waits for the gate. */
  prep(job: TurnJob): JobEvent {
    const { conversations, log, steering } = this.deps;
    const conv = conversations.open(job.ctx, job.principal);
    const refusal = ownershipRefusal(conv.principal, job.principal);
    if (refusal) {
      log.warn('turn.refused.not_owner', { ctx: job.ctx, principal: job.principal, reason: refusal });
      return { type: 'launch_failed', status: 'refused', error: 'this conversation is not available', kind: 'refused' };
    }
    const dropped = this.dropIfStale(job);
    if (dropped) return dropped;
    steering.flushNotes(conv);
    conversations.appendUserMessage(conv, job);
    return this.deps.wantsStaging(job, conv) ? { type: 'prep_start' } : { type: 'prepared' };
  }

  /**
   * Builds the snapshot and asks the budget: admitted, waiting, refused, or a launch that failed. Over a shared
   * store the answer comes once the fleet's window was read and reserved in (a promise).
   */
  admit(job: TurnJob): JobEvent | Promise<JobEvent> {
    // Asked again at every admission: a continuation that waited (staging, the gate, a budget wait) while a message
    // arrived or its goal changed must not run ahead of that message.
    const dropped = this.dropIfStale(job);
    if (dropped) return dropped;
    const conv = this.deps.conversations.open(job.ctx, job.principal);
    let snapshot: TurnSnapshot;
    try {
      // The turn id is drawn once the turn is admitted; a deferred turn draws none.
      snapshot = snapshotPayload(this.deps.snapshot, job, conv, '');
    } catch (err) {
      return this.failed(job, err);
    }
    const { payload, notes } = snapshot;
    const { budget } = this.deps;
    if (!budget.active) return this.hold(job, { ...snapshot, reservation: null });
    const tail = notes.reduce((n, m) => n + estimateText(m.role === 'note' ? m.text : ''), 0);
    const estimate = estimateConversation(conv) + tail + estimateText(payload.turn.system) + ANSWER_ALLOWANCE;
    if (budget.shared) {
      return budget.admitShared(job.ctx, job.principal, estimate).then(
        ({ admission, reservation }) => this.verdict(job, snapshot, admission, reservation),
        (err: unknown) => this.unreadable(err),
      );
    }
    const { admission, reservation } = budget.admitDispatch(job.ctx, job.principal, estimate);
    return this.verdict(job, snapshot, admission, reservation);
  }

  /** What the budget's answer leads to. */
  private verdict(
    job: TurnJob,
    snapshot: TurnSnapshot,
    admission: Admission,
    reservation: Reservation | null,
  ): JobEvent {
    const { payload } = snapshot;
    const { log, waits } = this.deps;
    switch (admission.kind) {
      case 'wait':
        // Logged (waits.defer) once the job table took the wait (arm_wait): a job gone meanwhile leaves nothing.
        return { type: 'budget_wait', untilMs: admission.untilMs, reason: admission.reason };
      case 'refuse':
      case 'fail':
        waits.done(job.event.id);
        log.warn('budget.refused', { ctx: job.ctx, inbox_event: job.event.id, reason: admission.reason });
        this.deps.onRefused();
        return { type: 'budget_refused', reason: admission.reason, admission: admission.kind };
      case 'ok':
        waits.done(job.event.id);
        payload.turn.budget_admission = true;
        if (admission.model !== undefined) {
          payload.intelligence = specForRef(this.deps.config, admission.model);
          log.info('budget.degraded', { ctx: job.ctx, model: admission.model });
        }
        return this.hold(job, { ...snapshot, reservation });
    }
  }

  /**
   * The shared window could not be read (the database is away): the turn waits a little and asks again rather
   * than admitting on this replica's own view.
   */
  private unreadable(err: unknown): JobEvent {
    const untilMs = this.deps.now() + UNREADABLE_WAIT_MS;
    const reason = `budget window unreadable: ${describeError(err)}`;
    return { type: 'budget_wait', untilMs, reason };
  }

  /** Starts the admitted turn's worker with a fresh turn id. */
  spawn(job: TurnJob): JobEvent {
    const { turns, turnIds, conversations, log } = this.deps;
    const admitted = this.admitted.get(job.event.id);
    this.admitted.delete(job.event.id);
    if (!admitted) return this.failed(job, new Error('the turn was not admitted'));
    const { payload, reservation } = admitted;
    try {
      payload.turn.turn_id = `turn-${turnIds.take()}`;
      const turn = turns.start(job, payload);
      turn.reservation = reservation;
      turn.notes = admitted.notes;
      if (admitted.judging) {
        turn.judging = admitted.judging;
        const { tools } = this.deps.snapshot;
        if (tools) turn.end.cleanups.push(tools.hold(admitted.judging));
      }
      // Only a started process counts: a spawn that fails later (EMFILE) is retried with the changes still untold
      // and the conversation's turn count as it was.
      turn.handle.whenSpawned(() => {
        admitted.told();
        conversations.countTurn(job.ctx);
        const fields = { ctx: job.ctx, node: turn.node, worker_pid: turn.handle.pid, turn: turn.turnId };
        log.info('turn.spawn', { ...fields, inbox_event: job.event.id });
      });
      return { type: 'spawned', node: turn.node, turnId: turn.turnId };
    } catch (err) {
      if (reservation) this.deps.budget.release(reservation);
      const code = spawnErrorCode(err);
      if (transientSpawnCode(code)) return { type: 'spawn_failed', code, error: describeError(err) };
      return this.failed(job, err);
    }
  }

  /** Gives back the reservation of a job admitted but not spawned (cancelled meanwhile). */
  release(eventId: string): void {
    const admitted = this.admitted.get(eventId);
    this.admitted.delete(eventId);
    if (admitted?.reservation) this.deps.budget.release(admitted.reservation);
  }

  /** A goal continuation that is no longer wanted (its goal changed, a message waits) folds as stale. */
  private dropIfStale(job: TurnJob): JobEvent | null {
    const stale = this.deps.steering.staleContinuation(job, this.deps.messageWaiting(job.ctx));
    if (!stale) return null;
    this.deps.log.info('goal.continuation.dropped', { ctx: job.ctx, inbox_event: job.event.id, reason: stale });
    return { type: 'launch_failed', status: 'cancelled', error: `${DROPPED_CONTINUATION}: ${stale}`, kind: 'stale' };
  }

  private hold(job: TurnJob, admitted: Admitted): JobEvent {
    this.admitted.set(job.event.id, admitted);
    return { type: 'budget_admitted' };
  }

  private failed(job: TurnJob, err: unknown): JobEvent {
    const message = describeError(err);
    this.deps.log.error('turn.spawn.fail', { ctx: job.ctx, inbox_event: job.event.id, err: message });
    return { type: 'launch_failed', status: 'failed', error: `could not start the turn: ${message}`, kind: 'internal' };
  }
}
