// Fold-back (reference §14.2): a turn's result joins its conversation, then the transcript, the inbox-done and the
// task's terminal state commit in one transaction. A commit the store refuses is retried every reactor step.
import type { Config } from '../config/types.js';
import { appendMessage } from '../context/conversation.js';
import type { Conversation } from '../domain/conversation.js';
import type { InboxOutcome } from '../domain/inbox.js';
import type { TurnJob } from '../domain/job.js';
import type { TaskRecord } from '../domain/task.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { TurnResult } from '../protocol/frames.js';
import type { Store } from '../store/store.js';
import type { ConversationBook } from './conversationBook.js';
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
  /** Asks for a reactor step (whose checkpoint retries a refused fold). */
  wake: () => void;
  /** The event's fold is durable (`result` is absent when only a retried commit's outcome survived). */
  committed: (eventId: string, outcome: InboxOutcome, result?: TurnResult) => void;
}

/** How soon a refused fold commit is tried again when no other step comes first. */
const FOLD_RETRY_MS = 1_000;

export class FoldBack {
  /** Folds whose commit is on its way to the store. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly deps: FoldBackDeps) {}

  /**
   * Folds a result into its conversation, then commits the transcript and the inbox-done together.
   * `deterministic`: the reply was made without a turn (preflight), and `turn.reply` says so.
   */
  finish(job: TurnJob, conv: Conversation, result: TurnResult, deterministic = false): void {
    this.apply(job, conv, planFold(result, this.deps.now()), result, deterministic);
  }

  /** Folds a turn the budget refused: its note, the inbox done, the task's terminal state. */
  notRun(job: TurnJob, conv: Conversation, reason: string): void {
    this.apply(job, conv, planNotRun(reason, this.deps.now()));
  }

  private apply(job: TurnJob, conv: Conversation, plan: FoldPlan, result?: TurnResult, deterministic = false): void {
    const { now, log, config } = this.deps;
    for (const msg of plan.append) appendMessage(conv, msg, now());
    logOutcome(log, job.ctx, plan.outcome, config.observability.log_content, deterministic);
    this.deps.beforeCommit();
    this.commit(job.event.id, conv.id, plan.outcome, result);
  }

  /** Retries the folds the store refused, then writes every changed conversation. */
  checkpoint(): void {
    for (const [id, pending] of [...this.deps.outcomes.uncommitted]) {
      this.commit(id, pending.ctx, pending.outcome, pending.result);
    }
    this.deps.conversations.checkpoint();
  }

  /** Commits a fold; on a store error nobody hears the outcome until a later attempt sticks. */
  private commit(eventId: string, ctx: string, outcome: InboxOutcome, result?: TurnResult): void {
    const { outcomes } = this.deps;
    // In flight: a checkpoint must not start a second attempt of the same fold.
    if (this.inFlight.has(eventId)) return;
    this.inFlight.add(eventId);
    const retried = outcomes.uncommitted.delete(eventId);
    void this.write(eventId, ctx, outcome, result, retried).finally(() => this.inFlight.delete(eventId));
  }

  private async write(
    eventId: string,
    ctx: string,
    outcome: InboxOutcome,
    result: TurnResult | undefined,
    retried: boolean,
  ): Promise<void> {
    const { store, conversations, outcomes, tasks, log } = this.deps;
    let task: TaskRecord | null = null;
    try {
      // The task moves to its terminal state in the same transaction (a later fold never resurrects it).
      task = (await tasks?.taskForFold(eventId, outcome)) ?? null;
      // Prepared right before the call: nothing is enqueued between the revision reserved and its commit.
      const conv = conversations.get(ctx);
      const prepared = conv ? conversations.prepare(conv) : null;
      const fold = { outcome, conversations: prepared ? [prepared.commit] : [], ...(task ? { task } : {}) };
      await store.inbox.complete(eventId, fold).then(
        () => prepared?.settled(true),
        (err: unknown) => {
          prepared?.settled(false);
          throw err;
        },
      );
    } catch (err) {
      if (!retried) log.error('store.checkpoint.fail', { ctx, inbox_event: eventId, err: describeError(err) });
      // The result rides along: what a committed turn leads to (a goal's accounting) needs its numbers.
      outcomes.uncommitted.set(eventId, result ? { ctx, outcome, result } : { ctx, outcome });
      // A later step retries it; one comes within a second even when nothing else happens.
      setTimeout(this.deps.wake, FOLD_RETRY_MS).unref();
      return;
    }
    // What the fold leads to (a proposal on the feed, notes, a goal's next turn) comes before the task's final
    // update, and must never take the fold, its waiters or the reactor down with it.
    try {
      this.deps.committed(eventId, outcome, result);
    } catch (err) {
      log.error('fold.after.fail', { ctx, inbox_event: eventId, err: describeError(err) });
    }
    outcomes.resolve(eventId, outcome);
    if (task) tasks?.afterFold(task);
  }
}
