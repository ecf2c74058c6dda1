// The supervisor's conversations in memory, which of them changed since the last checkpoint, and the checkpoint.
// Writes go through the store's one commit queue, in order, each on top of the revision the book expects: an
// accept or a fold that is acknowledged after its own commit was preceded by every write asked for before it.

import type { Conversation, ConversationControls } from '../domain/conversation.js';
import type { TurnJob } from '../domain/job.js';
import type { Plan } from '../domain/plan.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { Msg } from '../protocol/messages.js';
import type { ConversationCommit, Store } from '../store/store.js';
import type { CompactedParts } from './compaction.js';
import { appendMessage, hasUserMessageForEvent, newConversation } from './conversation.js';

/** A conversation write on its way to the store: what to commit, and what to tell the book once it settled. */
export interface PreparedCommit {
  commit: ConversationCommit;
  settled(ok: boolean, revision?: number): void;
}

export class ConversationBook {
  private readonly byId = new Map<string, Conversation>();
  private readonly dirty = new Set<string>();
  /** The revision the next commit of each conversation builds on (bumped as commits are asked for, in order). */
  private readonly next = new Map<string, number>();
  /**
   * Folds not committed yet, by conversation: inbox event → where its messages start. Until a fold's own commit
   * (with its inbox-done) sticks, other writes of that conversation stop short of its messages: a crash between
   * the two would otherwise keep the reply while the event replays, and the reply would appear twice.
   */
  private readonly folding = new Map<string, Map<string, number>>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** Loads every stored conversation (start-up). */
  async load(): Promise<void> {
    for (const { conversation, revision } of await this.store.conversations.load()) {
      this.byId.set(conversation.id, conversation);
      this.next.set(conversation.id, revision);
    }
  }

  /**
   * Reserves the next revision of `conv` for a commit about to be enqueued. A refused commit rewinds it, so the
   * retry (and every commit queued behind the refused one) builds on what the store still holds.
   */
  prepare(conv: Conversation, foldOf?: string): PreparedCommit {
    this.dirty.delete(conv.id);
    const expectedRevision = this.next.get(conv.id) ?? 0;
    this.next.set(conv.id, expectedRevision + 1);
    // What a fold in flight appended is written by that fold's own commit (a refused one marks the book dirty).
    const cap = this.heldFrom(conv.id, foldOf);
    return {
      // The state as of now: the queued call runs later, after folds that append replies of their own.
      commit: { conversation: snapshot(conv, cap), expectedRevision },
      settled: (ok) => {
        if (ok) {
          if (foldOf !== undefined) this.release(conv.id, foldOf);
          return;
        }
        if ((this.next.get(conv.id) ?? 0) > expectedRevision) this.next.set(conv.id, expectedRevision);
        this.dirty.add(conv.id);
      },
    };
  }

  /**
   * Marks the messages appended from here on as the fold of `eventId`: only that fold's commit writes them
   * (see `folding`). Called before the fold appends; a second call for the same fold keeps the first mark.
   */
  holdForFold(conv: Conversation, eventId: string): void {
    const held = this.folding.get(conv.id) ?? new Map<string, number>();
    if (!held.has(eventId)) held.set(eventId, conv.messages.length);
    this.folding.set(conv.id, held);
  }

  /** How many messages a commit may write: all of them, but for those of folds other than `foldOf`. */
  private heldFrom(id: string, foldOf: string | undefined): number {
    let cap = Number.POSITIVE_INFINITY;
    for (const [eventId, from] of this.folding.get(id) ?? []) if (eventId !== foldOf) cap = Math.min(cap, from);
    return cap;
  }

  private release(id: string, eventId: string): void {
    const held = this.folding.get(id);
    held?.delete(eventId);
    if (held?.size === 0) this.folding.delete(id);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Every conversation, in no particular order. */
  list(): Conversation[] {
    return [...this.byId.values()];
  }

  get(id: string): Conversation | undefined {
    return this.byId.get(id);
  }

  /** The conversation, created (owned by `principal`) on first use. */
  open(id: string, principal: string | null): Conversation {
    let conv = this.byId.get(id);
    if (!conv) {
      // root always belongs to the operator, whoever touches it first.
      const root = id === 'root';
      conv = newConversation(id, root ? 'root' : 'conversation', root ? 'operator' : principal, this.now());
      this.byId.set(id, conv);
      this.dirty.add(id);
    }
    return conv;
  }

  /** Appends `msgs` (notes, a turn's delta) in order; the conversation is written at the next checkpoint. */
  append(conv: Conversation, msgs: readonly Msg[]): void {
    if (msgs.length === 0) return;
    for (const msg of msgs) appendMessage(conv, msg, this.now());
    this.dirty.add(conv.id);
  }

  /** Appends the job's message as a user message, once per inbox event (a replayed event has it already). */
  appendUserMessage(conv: Conversation, job: TurnJob): void {
    if (hasUserMessageForEvent(conv, job.event.id)) return;
    const user = { role: 'user' as const, text: job.text, event: job.event.id, ts: this.now() };
    this.append(conv, [job.principal ? { ...user, principal: job.principal } : user]);
  }

  /** Replaces the plan (null clears it); written at the next checkpoint. */
  setPlan(conv: Conversation, plan: Plan | null): void {
    conv.plan = plan;
    this.touch(conv);
  }

  /** Replaces the steering controls; written at the next checkpoint (or at once by `saveNow`). */
  setControls(conv: Conversation, controls: ConversationControls): void {
    conv.controls = controls;
    this.touch(conv);
  }

  /** Replaces the loaded skills' names; written at the next checkpoint. */
  setSkills(conv: Conversation, names: readonly string[]): void {
    conv.skills = [...names];
    this.touch(conv);
  }

  /** Takes what a compaction or a clip made (summary, remaining messages, version); written at the next checkpoint. */
  replaceAfterCompaction(conv: Conversation, parts: CompactedParts): void {
    // Compaction folds the front away and keeps the newest messages: a fold still in flight keeps its messages,
    // which now start that many places earlier.
    const removed = conv.messages.length - parts.messages.length;
    for (const [eventId, from] of this.folding.get(conv.id) ?? []) {
      this.folding.get(conv.id)?.set(eventId, Math.max(0, from - removed));
    }
    conv.summary = parts.summary;
    conv.messages = parts.messages;
    conv.version = parts.version;
    conv.updated = parts.updated;
    this.dirty.add(conv.id);
  }

  private touch(conv: Conversation): void {
    conv.updated = this.now();
    this.dirty.add(conv.id);
  }

  /** A turn of `id` started. */
  countTurn(id: string): void {
    const conv = this.byId.get(id);
    if (!conv) return;
    conv.turns++;
    this.dirty.add(id);
  }

  /**
   * Appends a `[note]` and writes the conversation at once: the note is durable when this returns. A conversation
   * it creates belongs to `owner` (never to nobody, which anyone could reach).
   */
  noteNow(id: string, text: string, owner: string | null): Promise<void> {
    const conv = this.open(id, owner);
    appendMessage(conv, { role: 'note', text, ts: this.now() }, this.now());
    return this.saveNow(conv);
  }

  /**
   * Commits the conversation now (queued behind earlier writes): durable once the returned promise resolves, and
   * in any case before anything enqueued later. A refused write is logged and retried by the next checkpoint.
   */
  saveNow(conv: Conversation): Promise<void> {
    const prepared = this.prepare(conv);
    const { conversation, expectedRevision } = prepared.commit;
    return this.store.conversations.commit(conversation, expectedRevision).then(
      () => prepared.settled(true),
      (err: unknown) => {
        prepared.settled(false);
        this.log.error('store.checkpoint.fail', { ctx: conv.id, err: describeError(err) });
      },
    );
  }

  /** Commits every changed conversation; one the store refuses stays dirty and the next step retries it. */
  checkpoint(): void {
    if (this.dirty.size === 0) return;
    const list = [...this.dirty].map((id) => this.byId.get(id)).filter((c) => c !== undefined);
    for (const conv of list) void this.saveNow(conv);
  }
}

/**
 * A copy of what a commit writes: the message list and the small mutable parts are copied; messages themselves
 * are never changed once appended, so they are shared.
 */
function snapshot(conv: Conversation, cap = Number.POSITIVE_INFINITY): Conversation {
  const copy: Conversation = {
    ...conv,
    messages: conv.messages.slice(0, Math.min(cap, conv.messages.length)),
    summary: conv.summary === null ? null : structuredClone(conv.summary),
    plan: conv.plan === null ? null : structuredClone(conv.plan),
  };
  if (conv.controls !== undefined) copy.controls = structuredClone(conv.controls);
  if (conv.skills !== undefined) copy.skills = conv.skills.slice();
  return copy;
}
