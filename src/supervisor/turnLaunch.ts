// Starting a queued turn (reference §10.1): ownership, the user message, staging, the snapshot, dispatch admission
// against the budget, the worker. Any failure folds as a failed turn; a budget refusal folds as a turn not run.
import type { Reservation } from '../budget/governor.js';
import type { BudgetLedger } from '../budget/ledger.js';
import type { BudgetWaits } from '../budget/waits.js';
import type { Config } from '../config/types.js';
import { appendMessage, hasUserMessageForEvent } from '../context/conversation.js';
import type { ConversationBook } from '../context/conversationBook.js';
import { estimateConversation, estimateText } from '../context/estimate.js';
import type { Conversation } from '../domain/conversation.js';
import type { TurnJob } from '../domain/job.js';
import { describeError } from '../errors.js';
import { specForRef } from '../intel/models.js';
import type { Logger } from '../obs/log.js';
import type { SpawnPayload } from '../protocol/frames.js';
import { DROPPED_CONTINUATION, type Steering } from '../steering/steering.js';
import type { SequenceBlock } from '../store/sequenceBlock.js';
import { failedResult } from './fold.js';
import type { FoldBack } from './foldBack.js';
import { ownershipRefusal } from './jobQueries.js';
import type { TurnWorkers } from './turnWorkers.js';

/** Room the dispatch estimate leaves for the answer (reference §10.1). */
const ANSWER_ALLOWANCE = 4096;

export interface LaunchDeps {
  config: Readonly<Config>;
  /** Turn ids, unique across restarts, drawn inside the tick. */
  turnIds: SequenceBlock;
  log: Logger;
  now(): number;
  conversations: ConversationBook;
  folds: FoldBack;
  turns: TurnWorkers;
  /** The turn's snapshot (system prompt, slice, tools, route, mode); its turn id is drawn at spawn. */
  snapshot(job: TurnJob, conv: Conversation): SpawnPayload;
  budget: BudgetLedger;
  waits: BudgetWaits;
  /** Puts a job the budget deferred back in its place in the queue. */
  requeue(job: TurnJob): void;
  /** A turn the budget refused (metrics). */
  onRefused(): void;
  /** Takes the job into staging when it has anything to stage (preflight, knowledge, skills); false otherwise. */
  stage(job: TurnJob, conv: Conversation): boolean;
  steering: Steering;
  /** A message (not a goal continuation) for `ctx` waits in the queue. */
  messageWaiting(ctx: string): boolean;
  /** Re-runs the gate (a job folded without a turn frees its conversation). */
  wake(): void;
}

export class TurnLauncher {
  constructor(private readonly deps: LaunchDeps) {}

  /** Checks ownership and appends the message (once), then stages the job or starts its turn. */
  dispatch(job: TurnJob): void {
    const { conversations, folds, log, now, steering } = this.deps;
    const conv = conversations.open(job.ctx, job.principal);
    const refusal = ownershipRefusal(conv.principal, job.principal);
    if (refusal) {
      log.warn('turn.refused.not_owner', { ctx: job.ctx, principal: job.principal, reason: refusal });
      folds.finish(job, conv, failedResult('this conversation is not available', 'refused'));
      this.deps.wake(); // the conversation's next message may start now
      return;
    }
    const stale = steering.staleContinuation(job, this.deps.messageWaiting(job.ctx));
    if (stale) {
      log.info('goal.continuation.dropped', { ctx: job.ctx, inbox_event: job.event.id, reason: stale });
      folds.finish(job, conv, failedResult(`${DROPPED_CONTINUATION}: ${stale}`, 'cancelled'));
      this.deps.wake();
      return;
    }
    steering.flushNotes(conv);
    if (!hasUserMessageForEvent(conv, job.event.id)) {
      const user = { role: 'user' as const, text: job.text, event: job.event.id, ts: now() };
      appendMessage(conv, job.principal ? { ...user, principal: job.principal } : user, now());
      conversations.markDirty(conv.id);
    }
    if (!this.deps.stage(job, conv)) this.start(job, conv);
  }
  /** Builds the snapshot, admits it and starts a worker (ownership and the user message are already settled). */
  start(job: TurnJob, conv: Conversation): void {
    let payload: SpawnPayload;
    try {
      // The turn id is drawn once the turn is admitted; a deferred turn draws none.
      payload = this.deps.snapshot(job, conv);
    } catch (err) {
      this.spawnFailed(job, conv, err);
      return;
    }
    const admitted = this.admit(job, conv, payload);
    if (admitted) this.spawn(job, conv, payload, admitted.reservation);
  }

  /** Dispatch admission: the reservation to start with, or null when the turn waits or was refused. */
  private admit(job: TurnJob, conv: Conversation, payload: SpawnPayload): { reservation: Reservation | null } | null {
    const { budget, log, folds, waits } = this.deps;
    if (!budget.active) return { reservation: null };
    const estimate = estimateConversation(conv) + estimateText(payload.turn.system) + ANSWER_ALLOWANCE;
    const { admission, reservation } = budget.admitDispatch(job.ctx, job.principal, estimate);
    switch (admission.kind) {
      case 'wait':
        waits.defer(job.ctx, job.event.id, admission.untilMs, admission.reason);
        this.deps.requeue(job);
        return null;
      case 'refuse':
      case 'fail':
        waits.done(job.event.id);
        log.warn('budget.refused', { ctx: job.ctx, inbox_event: job.event.id, reason: admission.reason });
        this.deps.onRefused();
        folds.notRun(job, conv, admission.reason);
        this.deps.wake(); // the conversation's next message may start now
        return null;
      case 'ok':
        waits.done(job.event.id);
        payload.turn.budget_admission = true;
        if (admission.model !== undefined) {
          payload.intelligence = specForRef(this.deps.config, admission.model);
          log.info('budget.degraded', { ctx: job.ctx, model: admission.model });
        }
        return { reservation };
    }
  }

  private spawn(job: TurnJob, conv: Conversation, payload: SpawnPayload, reservation: Reservation | null): void {
    const { turns, turnIds, conversations, log, budget } = this.deps;
    try {
      payload.turn.turn_id = `turn-${turnIds.take()}`;
      const turn = turns.start(job, payload);
      turn.reservation = reservation;
      conv.turns++;
      conversations.markDirty(conv.id);
      log.info('turn.spawn', {
        ctx: job.ctx,
        node: turn.node,
        worker_pid: turn.handle.pid,
        turn: turn.turnId,
        inbox_event: job.event.id,
      });
    } catch (err) {
      if (reservation) budget.release(reservation);
      this.spawnFailed(job, conv, err);
    }
  }

  private spawnFailed(job: TurnJob, conv: Conversation, err: unknown): void {
    const message = describeError(err);
    this.deps.log.error('turn.spawn.fail', { ctx: job.ctx, inbox_event: job.event.id, err: message });
    this.deps.folds.finish(job, conv, failedResult(`could not start the turn: ${message}`, 'failed', 'internal'));
    this.deps.wake();
  }
}
