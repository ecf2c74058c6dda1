// Before a producer steers a conversation or sends to it: the conversation is loaded when it was evicted and held
// in memory while the caller uses it (steering works on resident conversations only), and a principal's message or
// new conversation is held to its quotas (policy: budget/quotas.ts). What counts against a quota is what is stored
// plus what is on its way: messages checked and not yet accepted, and queued jobs whose message is not yet appended.
import { conversationRefusal, QuotaExceeded, type QuotaRefusal, quotaRefusal, quotasOf } from '../budget/quotas.js';
import type { Config } from '../config/types.js';
import type { ConversationBook } from '../context/conversationBook.js';
import type { InboxEvent } from '../domain/inbox.js';
import type { TurnJob } from '../domain/job.js';
import type { Logger } from '../obs/log.js';
import type { JobTable } from './jobTable.js';
import type { TaskHooks } from './supervisorOptions.js';

export interface ConversationIntakeDeps {
  config: Readonly<Config>;
  conversations: ConversationBook;
  log: Logger;
  /** The job table and each job's input: a queued job's message is accepted but not yet in its conversation. */
  jobs: { readonly jobs: JobTable; input(eventId: string): TurnJob | undefined };
}

/** A message that passed its quotas: counted (and its conversation held) until `release`, once its accept settled. */
export interface Admission {
  release(): void;
}

/** Something on its way to a conversation: counted against its principal's quotas, and the conversation held. */
interface OnItsWay {
  principal: string | null;
  ctx: string;
  bytes: number;
}

export class ConversationIntake {
  /** Admitted messages and accepts whose commit has not settled (a queued job counts from then on). */
  private readonly onItsWay = new Set<OnItsWay>();
  /** Conversations held while a caller loads and uses them, by how many callers. */
  private readonly pinned = new Map<string, number>();
  /** Conversations loaded for replayed events, by event: held until the event's job holds them. */
  private readonly replaying = new Map<string, string>();

  constructor(private readonly deps: ConversationIntakeDeps) {}

  /**
   * Before claimed events queue (at start, and events a lease hands over later): their conversations come into
   * memory and stay there until their jobs exist (at start, nothing else but active goals is loaded), and the
   * tasks a crash lost are rebuilt.
   */
  async beforeReplay(events: readonly InboxEvent[], tasks: Pick<TaskHooks, 'recover'> | undefined): Promise<void> {
    for (const e of events) this.replaying.set(e.id, e.payload.context_id);
    await this.deps.conversations.fetchAll(events.map((e) => e.payload.context_id));
    await tasks?.recover?.(events);
  }

  /** Loads `ctx` when it exists and is not in memory (a caller that uses it later should prefer `withLoaded`). */
  async load(ctx: string): Promise<void> {
    await this.deps.conversations.fetch(ctx);
  }

  /** Loads `ctx` and runs `work` while it is held in memory: steering it inside `work` finds it resident. */
  async withLoaded<T>(ctx: string, work: () => T): Promise<T> {
    this.pin(ctx, 1);
    try {
      await this.deps.conversations.fetch(ctx);
      return work();
    } finally {
      this.pin(ctx, -1);
    }
  }

  /**
   * Loads `ctx`, then checks a message of `text` from `principal` to it against the principal's quotas, counting
   * what is on its way too: throws a QuotaExceeded (before anything is stored) when it would pass one. The
   * admission counts the message, and holds its conversation, until released (after its accept settled).
   */
  async admit(principal: string, ctx: string, text: string): Promise<Admission> {
    const { config, conversations } = this.deps;
    await this.withLoaded(ctx, () => undefined);
    const bytes = Buffer.byteLength(text);
    const quotas = quotasOf(config.a2a.principals, principal);
    if (quotas !== undefined) {
      const use = this.usage(principal);
      const refusal = quotaRefusal(principal, quotas, {
        conversations: use.conversations,
        storedBytes: use.bytes,
        messageBytes: bytes,
        newConversation: !conversations.heads.has(ctx) && !use.newContexts.has(ctx),
      });
      if (refusal !== null) this.refuse(refusal, ctx);
    }
    return this.track({ principal, ctx, bytes });
  }

  /** An answer to a task's question is no new message, but still one message: only `message_bytes` applies. */
  checkMessageBytes(principal: string, ctx: string, text: string): void {
    const quotas = quotasOf(this.deps.config.a2a.principals, principal);
    const use = { conversations: 0, storedBytes: 0, messageBytes: Buffer.byteLength(text), newConversation: false };
    const refusal = quotaRefusal(principal, { message_bytes: quotas?.message_bytes }, use);
    if (refusal !== null) this.refuse(refusal, ctx);
  }

  /**
   * Throws a QuotaExceeded when `ctx` would be a new conversation of `owner` past its `conversations` quota (the
   * book's create path, an accept into a conversation that does not exist yet). root is always the operator's.
   */
  checkNew(owner: string | null, ctx: string): void {
    if (owner === null || ctx === 'root' || this.deps.conversations.heads.has(ctx)) return;
    const quotas = quotasOf(this.deps.config.a2a.principals, owner);
    if (quotas?.conversations === undefined) return;
    const use = this.usage(owner);
    if (use.newContexts.has(ctx)) return;
    const refusal = conversationRefusal(owner, quotas, use.conversations);
    if (refusal !== null) this.refuse(refusal, ctx);
  }

  /**
   * An accept on its way to the store: checks a new conversation's quota first (throws), then counts as a message
   * waiting in `ctx` (no goal continuation overtakes it) until the returned admission is released.
   */
  beginAccept(ctx: string, principal: string | null): Admission {
    this.checkNew(principal, ctx);
    return this.track({ principal, ctx, bytes: 0 });
  }

  /** An accept of `ctx` has not settled yet. */
  accepting(ctx: string): boolean {
    for (const w of this.onItsWay) if (w.ctx === ctx) return true;
    return false;
  }

  /** The conversations the intake holds now: admitted or accepting, pinned by a caller, loaded for a replay. */
  held(): string[] {
    const held = [...this.pinned.keys()];
    for (const w of this.onItsWay) held.push(w.ctx);
    for (const [eventId, ctx] of this.replaying) {
      // Once its job exists the job holds the conversation.
      if (this.deps.jobs.jobs.has(eventId)) this.replaying.delete(eventId);
      else held.push(ctx);
    }
    return held;
  }

  /**
   * What `principal` holds and has on its way: stored conversations and bytes, plus messages admitted or queued
   * (not yet appended) and the new conversations they will create.
   */
  private usage(principal: string): { conversations: number; bytes: number; newContexts: Set<string> } {
    const { conversations, jobs } = this.deps;
    const stored = conversations.heads.usage(principal);
    const newContexts = new Set<string>();
    let bytes = stored.bytes;
    const count = (ctx: string, n: number): void => {
      bytes += n;
      if (!conversations.heads.has(ctx)) newContexts.add(ctx);
    };
    for (const w of this.onItsWay) if (w.principal === principal) count(w.ctx, w.bytes);
    for (const job of jobs.jobs.values()) {
      // A queued job's message is appended when it leaves the queue (turnLaunch `prep`): then the heads count it.
      if (job.state !== 'queued' || job.principal !== principal) continue;
      count(job.ctx, Buffer.byteLength(jobs.input(job.eventId)?.text ?? ''));
    }
    return { conversations: stored.conversations + newContexts.size, bytes, newContexts };
  }

  private track(entry: OnItsWay): Admission {
    this.onItsWay.add(entry);
    return { release: () => this.onItsWay.delete(entry) };
  }

  private pin(ctx: string, by: 1 | -1): void {
    const left = (this.pinned.get(ctx) ?? 0) + by;
    if (left > 0) this.pinned.set(ctx, left);
    else this.pinned.delete(ctx);
  }

  private refuse(refusal: QuotaRefusal, ctx: string): never {
    this.deps.log.warn('a2a.quota.refused', { ...refusal, ctx });
    throw new QuotaExceeded(refusal);
  }
}

/** The conversations something holds now (a job of the table, the intake, a think child): never evicted. */
export function heldContexts(
  jobs: Iterable<{ ctx: string }>,
  intake: Iterable<string>,
  thinking: Iterable<string>,
): Set<string> {
  const held = new Set([...intake, ...thinking]);
  for (const job of jobs) held.add(job.ctx);
  return held;
}
