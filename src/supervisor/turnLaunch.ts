// Starting a queued turn (reference §10.1): ownership, the user message, the snapshot, dispatch admission against
// the budget, the worker. Any failure folds as a failed turn; a budget refusal folds as a turn not run.
import type { Reservation } from '../budget/governor.js';
import type { Config } from '../config/types.js';
import { appendMessage, hasUserMessageForEvent } from '../context/conversation.js';
import { estimateConversation, estimateText } from '../context/estimate.js';
import { describeError } from '../errors.js';
import { specForRef } from '../intel/models.js';
import type { Logger } from '../obs/log.js';
import type { SpawnPayload } from '../protocol/frames.js';
import type { Conversation, Store } from '../store/store.js';
import type { BudgetLedger } from './budgetLedger.js';
import type { BudgetWaits } from './budgetWaits.js';
import type { ConversationBook } from './conversationBook.js';
import { ownershipRefusal, type TurnJob } from './dispatch.js';
import { failedResult } from './fold.js';
import type { FoldBack } from './foldBack.js';
import type { ToolSurface } from './toolSurface.js';
import { buildTurnPayload } from './turnBuild.js';
import type { TurnWorkers } from './turnWorkers.js';

/** Room the dispatch estimate leaves for the answer (reference §10.1). */
export const ANSWER_ALLOWANCE = 4096;

export interface LaunchDeps {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now(): number;
  conversations: ConversationBook;
  folds: FoldBack;
  turns: TurnWorkers;
  tools: ToolSurface | undefined;
  budget: BudgetLedger;
  waits: BudgetWaits;
  /** Puts a job the budget deferred back in its place in the queue. */
  requeue(job: TurnJob): void;
  /** A turn the budget refused (metrics). */
  onRefused(): void;
}

export class TurnLauncher {
  constructor(private readonly deps: LaunchDeps) {}

  /** Appends the message (once), builds the snapshot, admits it and starts a worker. */
  start(job: TurnJob): void {
    const { conversations, folds, log, now } = this.deps;
    const conv = conversations.open(job.ctx, job.principal);
    const refusal = ownershipRefusal(conv.principal, job.principal);
    if (refusal) {
      log.warn('turn.refused.not_owner', { ctx: job.ctx, principal: job.principal, reason: refusal });
      folds.finish(job, conv, failedResult('this conversation is not available', 'refused'));
      return;
    }
    if (!hasUserMessageForEvent(conv, job.event.id)) {
      const user = { role: 'user' as const, text: job.text, event: job.event.id, ts: now() };
      appendMessage(conv, job.principal ? { ...user, principal: job.principal } : user, now());
      conversations.markDirty(conv.id);
    }
    let payload: SpawnPayload;
    try {
      payload = this.snapshot(conv);
    } catch (err) {
      this.spawnFailed(job, conv, err);
      return;
    }
    const admitted = this.admit(job, conv, payload);
    if (admitted) this.spawn(job, conv, payload, admitted.reservation);
  }

  private snapshot(conv: Conversation): SpawnPayload {
    const { config, store, tools, now } = this.deps;
    const plan = tools?.plan();
    const memoryKeys = store.memoryList('', 32, now()).keys;
    // The turn id is drawn once the turn is admitted; a deferred turn draws none.
    const payload = buildTurnPayload({ config, conversation: conv, turnId: '', plan, memoryKeys });
    if (tools) {
      payload.mcp_servers = tools.serverSpecs(payload.turn.mcp_routes);
      payload.code_tools_module = tools.codeToolsModule;
      payload.turn.gated = tools.gatedCodeTools();
    }
    return payload;
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
    const { turns, store, conversations, log, budget } = this.deps;
    try {
      payload.turn.turn_id = `turn-${store.nextSequence('turn')}`;
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
    this.deps.folds.finish(job, conv, failedResult(`could not start the turn: ${message}`));
  }
}
