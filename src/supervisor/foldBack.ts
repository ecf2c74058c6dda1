// Fold-back (reference §14.2): a turn's result joins its conversation, then the transcript, the inbox-done and the
// task's terminal state commit in one transaction. A commit the store refuses is retried every reactor step.
import type { Config } from '../config/types.js';
import { appendMessage } from '../context/conversation.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { TurnResult } from '../protocol/frames.js';
import type { Conversation, InboxOutcome, Store } from '../store/store.js';
import type { ConversationBook } from './conversationBook.js';
import type { TurnJob } from './dispatch.js';
import { type FoldPlan, planFold, planNotRun } from './fold.js';
import { logOutcome } from './foldEvents.js';
import type { Outcomes } from './outcomes.js';
import type { TaskHooks } from './taskHooks.js';

export interface FoldBackDeps {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now: () => number;
  conversations: ConversationBook;
  outcomes: Outcomes;
  tasks: TaskHooks | undefined;
  /** Called just before the commit (the test-only crash point). */
  beforeCommit: () => void;
  /** The event's fold is durable: it leaves the supervisor's books. */
  committed: (eventId: string, ctx: string, outcome: InboxOutcome) => void;
}

export class FoldBack {
  constructor(private readonly deps: FoldBackDeps) {}

  /** Folds a result into its conversation, then commits the transcript and the inbox-done together. */
  finish(job: TurnJob, conv: Conversation, result: TurnResult): void {
    this.apply(job, conv, planFold(result, this.deps.now()));
  }

  /** Folds a turn the budget refused: its note, the inbox done, the task's terminal state. */
  notRun(job: TurnJob, conv: Conversation, reason: string): void {
    this.apply(job, conv, planNotRun(reason, this.deps.now()));
  }

  private apply(job: TurnJob, conv: Conversation, plan: FoldPlan): void {
    const { now, log, config } = this.deps;
    for (const msg of plan.append) appendMessage(conv, msg, now());
    logOutcome(log, job.ctx, plan.outcome, config.observability.log_content);
    this.deps.beforeCommit();
    this.commit(job.event.id, conv.id, plan.outcome);
  }

  /** Retries the folds the store refused, then writes every changed conversation. */
  checkpoint(): void {
    for (const [id, pending] of [...this.deps.outcomes.uncommitted]) this.commit(id, pending.ctx, pending.outcome);
    this.deps.conversations.checkpoint();
  }

  /** Commits a fold; on a store error nobody hears the outcome until a later attempt sticks. */
  private commit(eventId: string, ctx: string, outcome: InboxOutcome): void {
    const { store, conversations, outcomes, tasks, log } = this.deps;
    const conv = conversations.get(ctx);
    // The task moves to its terminal state in the same transaction (a later fold never resurrects it).
    const task = tasks?.taskForFold(eventId, outcome) ?? null;
    try {
      store.completeInbox(eventId, outcome, conv ? [conv] : [], task ?? undefined);
    } catch (err) {
      if (!outcomes.uncommitted.has(eventId)) {
        log.error('store.checkpoint.fail', { ctx, inbox_event: eventId, err: describeError(err) });
      }
      outcomes.uncommitted.set(eventId, { ctx, outcome });
      return;
    }
    outcomes.uncommitted.delete(eventId);
    conversations.markClean(ctx);
    this.deps.committed(eventId, ctx, outcome);
    outcomes.resolve(eventId, outcome);
    if (task) tasks?.afterFold(task);
  }
}
