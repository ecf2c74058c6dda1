// Fold-back (reference §14.2): a turn's result joins its conversation, then the transcript, the inbox-done and the
// task's terminal state commit in one transaction. A commit the store refuses is retried while its job folds.
import type { Config } from '../config/types.js';
import { hasUserMessageForEvent } from '../context/conversation.js';
import type { ConversationBook } from '../context/conversationBook.js';
import type { Conversation } from '../domain/conversation.js';
import type { FeedEntry } from '../domain/feed.js';
import type { InboxEvent, InboxOutcome, InboxRecord } from '../domain/inbox.js';
import type { TurnJob } from '../domain/job.js';
import type { TaskRecord } from '../domain/task.js';
import { DaemonError, describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { TurnResult } from '../protocol/frames.js';
import { cacheFields, chargedTokens } from '../protocol/usage.js';
import type { CommitHealth } from '../store/commitHealth.js';
import type { InboxPort, Store } from '../store/store.js';
import { type FoldPlan, type NotRunKind, planFold, planNotRun } from './fold.js';
import type { TaskHooks } from './supervisorOptions.js';

export interface FoldBackDeps {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now: () => number;
  conversations: ConversationBook;
  outcomes: Outcomes;
  tasks: TaskHooks | undefined;
  /** The test-only crash points: `fold.before_commit`, and `fold.after_commit` before anyone hears of it. */
  killPoint: (name: string) => void;
  /** The event's fold is durable (`result` is absent for a turn that did not run). */
  committed: (eventId: string, outcome: InboxOutcome, result?: TurnResult) => void;
  /**
   * The store refused the event's fold; `retry` tries again. `fencedCtx`: the lease fence refused it, another
   * replica holds that conversation and runs the event (never retried here).
   */
  failed: (eventId: string, fencedCtx?: string) => void;
  /** Hears each fold's commit refused or stuck (readiness, new accepts). */
  health?: CommitHealth;
}

/** `deterministic`: a reply made without a turn; `unseen`: no turn ran, so the feed shows nothing of it. */
interface FoldHow {
  deterministic?: boolean;
  unseen?: boolean;
}

/** A fold's write: what a retry sends again. `owner`: the conversation's principal (its feed audience). */
interface FoldWrite {
  event: InboxEvent;
  ctx: string;
  /** The copy the fold appended to: on replicas, only that copy may carry it to the store. */
  conv: Conversation;
  owner: string | null;
  outcome: InboxOutcome;
  result?: TurnResult;
  /** The job never ran a turn: no feed entries for it. */
  unseen: boolean;
}

export class FoldBack {
  /** Folds whose commit is on its way to the store. */
  private readonly inFlight = new Set<string>();
  /** What each refused fold writes when retried (whether it folds is the job table's). */
  private readonly refused = new Map<string, FoldWrite>();
  /** Each conversation's folds on their way, chained in order. */
  private readonly lanes = new Map<string, Promise<void>>();

  constructor(private readonly deps: FoldBackDeps) {}

  /**
   * Folds a result into its conversation, then commits the transcript and the inbox-done together.
   * `deterministic`: the reply was made without a turn (preflight), and `turn.reply` says so.
   */
  finish(job: TurnJob, conv: Conversation, result: TurnResult, deterministic = false): void {
    // Replicas: a copy without the turn's message is not the one the turn ran on (that one was given up and the
    // conversation read again meanwhile): the fold is dropped, and the event runs again on the stored transcript.
    if (!deterministic && this.deps.store.leases !== undefined && !hasUserMessageForEvent(conv, job.event.id)) {
      this.deps.log.error('store.checkpoint.fail', {
        ctx: conv.id,
        inbox_event: job.event.id,
        err: givenUp(conv.id).message,
      });
      queueMicrotask(() => this.deps.failed(job.event.id, conv.id));
      return;
    }
    this.apply(job, conv, planFold(result, this.deps.now()), result, { deterministic });
  }

  /**
   * Folds the outcome of a job that never ran a turn: the inbox and task hear it, the conversation gets no note
   * (and the feed no message: nothing of it joined the conversation).
   */
  withoutTurn(job: TurnJob, conv: Conversation, result: TurnResult): void {
    this.apply(job, conv, planFold(result, this.deps.now(), false), result, { unseen: true });
  }

  /** Folds a turn the budget refused: its note, the inbox done, the task's terminal state. */
  notRun(job: TurnJob, conv: Conversation, reason: string, kind: NotRunKind): void {
    this.apply(job, conv, planNotRun(reason, kind, this.deps.now()));
  }

  private apply(job: TurnJob, conv: Conversation, plan: FoldPlan, result?: TurnResult, how: FoldHow = {}): void {
    const { deterministic = false, unseen = false } = how;
    const { log, config } = this.deps;
    // Worker text was redacted where its frames were received (Children.onFrame).
    this.deps.conversations.holdForFold(conv, job.event.id);
    this.deps.conversations.append(conv, plan.append);
    const jobShape = config.a2a.listen === null;
    logOutcome(log, job.ctx, plan.outcome, { logContent: config.observability.log_content, jobShape, deterministic });
    this.deps.killPoint('fold.before_commit');
    const owner = conv.principal ?? job.event.principal;
    const write = { event: job.event, ctx: conv.id, conv, owner, outcome: plan.outcome, unseen };
    this.commit(result ? { ...write, result } : write);
  }

  /** Tries a refused fold again (not while an attempt is in flight). */
  retry(eventId: string): void {
    const write = this.refused.get(eventId);
    if (write) this.commit(write);
  }

  /**
   * Commits a fold; on a store error nobody hears the outcome until a later attempt sticks. A conversation's folds
   * write one after another, in the order they were made: a later fold never prepares its commit while an earlier
   * one is still on its way (its cap would leave out its own messages, see FoldMarks).
   */
  private commit(write: FoldWrite): void {
    const eventId = write.event.id;
    // In flight: a retry must not start a second attempt of the same fold.
    if (this.inFlight.has(eventId)) return;
    this.inFlight.add(eventId);
    const retried = this.refused.delete(eventId);
    const run = () => this.write(write, retried).finally(() => this.inFlight.delete(eventId));
    const before = this.lanes.get(write.ctx);
    const lane = (before ? before.then(run) : run()).catch(() => {});
    this.lanes.set(write.ctx, lane);
    void lane.then(() => this.lanes.get(write.ctx) === lane && this.lanes.delete(write.ctx));
  }

  /** An earlier fold of the conversation waits for its retry: this one waits behind it (retried after it). */
  private behindRefused(write: FoldWrite): boolean {
    for (const [eventId, other] of this.refused) if (other.ctx === write.ctx && eventId !== write.event.id) return true;
    return false;
  }

  private async write(write: FoldWrite, retried: boolean): Promise<void> {
    const { ctx, outcome, result } = write;
    const eventId = write.event.id;
    const { store, conversations, outcomes, tasks, log } = this.deps;
    let task: TaskRecord | null = null;
    let feed: readonly FeedEntry[] = [];
    if (this.behindRefused(write)) {
      this.refused.set(eventId, write);
      return this.deps.failed(eventId);
    }
    try {
      // The task moves to its terminal state in the same transaction (a later fold never resurrects it).
      task = (await tasks?.taskForFold(eventId, outcome)) ?? null;
      // Prepared right before the call: nothing is enqueued between the revision reserved and its commit.
      const conv = conversations.get(ctx);
      // Replicas: a copy given up while the turn ran or the fold waited (its lease moved, even if it came back and
      // the conversation was read again) carries the turn's messages no more; the event reruns on the stored
      // transcript rather than being marked done without them.
      if (store.leases !== undefined && conv !== write.conv) throw givenUp(ctx);
      const prepared = conv ? conversations.prepare(conv, eventId) : null;
      // A turn no A2A task follows still shows its message and reply on its conversation's feed (issue 18).
      const turnFeed = write.unseen ? undefined : tasks?.feedForTurn?.(write.event, outcome, write.owner);
      feed = (task ? tasks?.feedForFold?.(task) : turnFeed) ?? [];
      const fold = { outcome, conversations: prepared ? [prepared.commit] : [], ...(task ? { task } : {}), feed };
      await store.inbox.complete(eventId, fold).then(
        () => prepared?.settled(true),
        (err: unknown) => {
          prepared?.settled(false);
          throw err;
        },
      );
    } catch (err) {
      if (!retried) log.error('store.checkpoint.fail', { ctx, inbox_event: eventId, err: describeError(err) });
      // A fenced fold is never retried (nor, on replicas, a conflict): the event runs again on the stored transcript
      // (issue 19).
      if (isFenced(err) || (store.leases !== undefined && isConflict(err))) return this.deps.failed(eventId, ctx);
      this.deps.health?.failed(eventId, err);
      // The result rides along: what a committed turn leads to (a goal's accounting) needs its numbers.
      this.refused.set(eventId, write);
      this.deps.failed(eventId);
      return;
    }
    this.deps.killPoint('fold.after_commit');
    this.deps.health?.succeeded(eventId);
    // What the fold leads to (a proposal on the feed, notes, a goal's next turn) comes before the task's final
    // update, and must never take the fold, its waiters or the reactor down with it.
    try {
      this.deps.committed(eventId, outcome, result);
    } catch (err) {
      log.error('fold.after.fail', { ctx, inbox_event: eventId, err: describeError(err) });
    }
    outcomes.resolve(eventId, outcome);
    if (task) tasks?.afterFold(task);
    else if (feed.length > 0) tasks?.feedCommitted?.();
  }
}

// The events a fold-back writes: turn.done, turn.reply and root.finish (reference §14.2, §20).
export function logTurnDone(log: Logger, at: { node: number; ctx: string; turn: string }, result: TurnResult): void {
  log.info('turn.done', {
    ...at,
    status: result.status,
    rounds: result.rounds,
    tool_calls: result.tool_calls,
    tokens: chargedTokens(result.usage),
    ...cacheFields(result.usage),
    ...(result.error ? { err: result.error } : {}),
  });
}

/** `turn.reply` (the text only with observability.log_content) and `root.finish` when finish was called. */
function logOutcome(
  log: Logger,
  ctx: string,
  outcome: InboxOutcome,
  { logContent, jobShape, deterministic }: { logContent: boolean; jobShape: boolean; deterministic: boolean },
): void {
  if (outcome.reply) {
    const text = logContent ? { text: outcome.reply } : {};
    log.info('turn.reply', { ctx, chars: outcome.reply.length, ...(deterministic ? { deterministic } : {}), ...text });
  }
  if (outcome.finish_status !== undefined) {
    const exit = outcome.finish_exit === true;
    log.info('root.finish', { ctx, status: outcome.finish_status, exit, job_shape: jobShape });
  }
}

// Who is waiting for which inbox event's outcome.
// A waiter hears an outcome only once it is durable (or when the event is abandoned and will replay).
/** What a waiter hears when a drain stopped its turn (or it never started): the message replays next start. */
export const ABANDONED: InboxOutcome = {
  status: 'cancelled',
  reply: '',
  error: 'the turn was stopped by a drain; the message stays pending and replays on the next start',
  error_kind: 'cancelled',
};

/** How often a waiter for another replica's event reads the store (ms). */
const FOLLOW_MS = 250;

export class Outcomes {
  private readonly waiters = new Map<string, Array<(o: InboxOutcome) => void>>();

  /**
   * Resolves with the event's outcome once its turn has folded back (at once when the store has it). An unknown
   * event, or one a drain abandoned, resolves with a `failed` / `cancelled` outcome that says so.
   */
  of(
    eventId: string,
    at: { known: boolean; inbox: Pick<InboxPort, 'find'>; draining: boolean; shared?: boolean },
  ): Promise<InboxOutcome> {
    if (at.known) return this.wait(eventId);
    // Registered before the read, so a fold that commits meanwhile is not missed; dropped when the read answers.
    let hear: (o: InboxOutcome) => void = () => {};
    const waiting = new Promise<InboxOutcome>((resolve) => {
      hear = resolve;
      this.add(eventId, resolve);
    });
    return at.inbox.find(eventId).then((record) => {
      const answer = settledAnswer(eventId, record, at.draining);
      // Replicas: an event pending and not run here is another replica's; its outcome comes from the store.
      if (answer === null && at.shared) this.follow(eventId, at.inbox);
      if (answer === null) return waiting;
      this.drop(eventId, hear);
      return answer;
    });
  }

  /**
   * The event runs on another replica (interfaces reference §4.4): its waiters hear the outcome once the store
   * has it, read every `everyMs` while anyone waits.
   */
  follow(eventId: string, inbox: Pick<InboxPort, 'find'>, everyMs = FOLLOW_MS): void {
    let reading = false;
    const timer = setInterval(() => {
      if (!this.waiters.has(eventId)) clearInterval(timer);
      if (reading || !this.waiters.has(eventId)) return;
      reading = true;
      inbox
        .find(eventId)
        .then((record) => {
          if (record?.status !== 'done') return;
          clearInterval(timer);
          this.resolve(eventId, record.outcome ?? { status: 'completed', reply: '' });
        })
        .catch(() => {})
        .finally(() => {
          reading = false;
        });
    }, everyMs);
    timer.unref();
  }

  wait(eventId: string): Promise<InboxOutcome> {
    return new Promise((resolve) => this.add(eventId, resolve));
  }

  private add(eventId: string, waiter: (o: InboxOutcome) => void): void {
    const list = this.waiters.get(eventId) ?? [];
    list.push(waiter);
    this.waiters.set(eventId, list);
  }

  private drop(eventId: string, waiter: (o: InboxOutcome) => void): void {
    const list = (this.waiters.get(eventId) ?? []).filter((w) => w !== waiter);
    if (list.length === 0) this.waiters.delete(eventId);
    else this.waiters.set(eventId, list);
  }

  /** The waiters of every event `which` picks hear `outcome`. */
  resolveAll(outcome: InboxOutcome, which: (eventId: string) => boolean): void {
    for (const eventId of [...this.waiters.keys()]) if (which(eventId)) this.resolve(eventId, outcome);
  }

  resolve(eventId: string, outcome: InboxOutcome): void {
    const waiters = this.waiters.get(eventId) ?? [];
    this.waiters.delete(eventId);
    for (const w of waiters) w(outcome);
  }
}

/** What a caller hears at once about an event the queue does not know, or null when it must wait for the fold. */
function settledAnswer(eventId: string, record: InboxRecord | null, draining: boolean): InboxOutcome | null {
  if (record === null) {
    return { status: 'failed', reply: '', error: `unknown inbox event ${eventId}`, error_kind: 'internal' };
  }
  if (record.status === 'done') return record.outcome ?? { status: 'completed', reply: '' };
  return draining ? ABANDONED : null;
}

function givenUp(ctx: string): DaemonError {
  return new DaemonError('store_fenced', `conversation ${ctx}: this replica gave its copy up; the fold is dropped`);
}

function isFenced(err: unknown): boolean {
  return err instanceof DaemonError && err.code === 'store_fenced';
}

/**
 * Replicas: a fold on a copy another holder's commits outdated (taken over with a stale copy) can never commit; it
 * is dropped like a fenced one, and the event, still pending, runs again here on the stored transcript.
 */
function isConflict(err: unknown): boolean {
  return err instanceof DaemonError && err.code === 'store_conflict';
}
