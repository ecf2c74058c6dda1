// The supervisor's conversations: a head (owner, stored bytes) for every one, the resident few in memory (loaded on
// demand, idle ones evicted past `store.conversation_cache`), which changed since the last checkpoint, and the
// checkpoint. Writes go through the store's one commit queue, in order, each on top of the revision the book
// expects: an accept or a fold that is acknowledged after its own commit was preceded by every write asked for
// before it. A conversation is used only while resident: async entry points `fetch` it first.
import { KEYS } from '../config/schema.js';
import type { Conversation, ConversationControls } from '../domain/conversation.js';
import type { TurnJob } from '../domain/job.js';
import type { Plan } from '../domain/plan.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { Msg } from '../protocol/messages.js';
import type { ConversationCommit, Store } from '../store/store.js';
import { CheckpointRefusals } from './checkpointRefusals.js';
import type { CompactedParts } from './compaction.js';
import { appendMessage, commitSnapshot, hasUserMessageForEvent, newConversation } from './conversation.js';
import { type CacheLimits, noPendingWork, planEviction } from './conversationCache.js';
import { ConversationHeads } from './conversationHeads.js';
import { FoldMarks } from './foldMarks.js';

/** The cache's default limits: the schema's defaults of `store.conversation_cache` (one source). */
export const DEFAULT_CONVERSATION_CACHE: CacheLimits = {
  entries: KEYS['store.conversation_cache.entries'].default,
  bytes: KEYS['store.conversation_cache.bytes'].default,
};

/** How long a note whose conversation could not be read waits before the next try (ms), and how many tries. */
const NOTE_RETRY_MS = [200, 1_000, 5_000, 30_000];

export interface BookOptions {
  /** `store.conversation_cache`; default DEFAULT_CONVERSATION_CACHE. */
  conversation_cache?: CacheLimits;
  /** Conversations something outside the book holds now (a job, an accept on its way, a think child). */
  busy?: () => ReadonlySet<string>;
  /** Checks a conversation `create` is about to make for `owner` (its quota); throws to refuse it. */
  admitNew?: (id: string, owner: string | null) => void;
}

/** A conversation write on its way to the store: what to commit, and what to tell the book once it settled. */
export interface PreparedCommit {
  commit: ConversationCommit;
  settled(ok: boolean, revision?: number): void;
}

export class ConversationBook {
  /** Resident conversations, least recently used first (a use moves one to the end). */
  private readonly byId = new Map<string, Conversation>();
  /** Every conversation's owner and stored bytes, resident or not. */
  readonly heads = new ConversationHeads();
  private readonly loading = new Map<string, Promise<Conversation | undefined>>();
  /** Commits asked for and not settled, by conversation: its stored revision is not known until they settle. */
  private readonly inFlight = new Map<string, number>();
  /** The trim each resident conversation was last used in: one used since the last trim stays for this one. */
  private readonly usedAt = new Map<string, number>();
  private trims = 0;
  private trimQueued = false;
  private readonly dirty = new Set<string>();
  /** Refused checkpoints: logged once per conversation, retried on the fold backoff. */
  private readonly refusals = new CheckpointRefusals();
  /** The revision the next commit of each conversation builds on (bumped as commits are asked for, in order). */
  private readonly next = new Map<string, number>();
  /** Folds not committed yet: other writes stop short of their messages (see FoldMarks). */
  private readonly folding = new FoldMarks();
  /** Commits refused so far, per conversation: one asked for before a refusal built on it (`stale`). */
  private readonly refused = new Map<string, number>();
  /** How often each conversation was forgotten: a read that straddles a forget installs nothing. */
  private readonly forgets = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly now: () => number,
    private readonly opts: BookOptions = {},
  ) {}

  /** Start-up: reads every head (no message), loads only `ids` (pending events') and those with an active goal. */
  async restore(ids: Iterable<string> = []): Promise<void> {
    const goals = this.heads.restore(await this.store.conversations.heads());
    await this.fetchAll([...ids, ...goals]);
  }

  /** Loads each conversation that is stored and not resident (see `fetch`). */
  async fetchAll(ids: Iterable<string>): Promise<void> {
    for (const id of new Set(ids)) await this.fetch(id);
  }

  /** The conversation, loaded when evicted or never loaded (undefined: none); resident until the trim after next. */
  fetch(id: string): Promise<Conversation | undefined> {
    const resident = this.get(id);
    // On a shared store (replicas) another replica may have created or moved the conversation: an idle copy is
    // read again, and one never seen here is looked for (reference interfaces §4.4).
    const shared = this.store.kind === 'postgres';
    if (resident && !(shared && this.idle(id))) return Promise.resolve(resident);
    if (!resident && !shared && !this.heads.has(id)) return Promise.resolve(undefined);
    let pending = this.loading.get(id);
    if (pending === undefined) {
      pending = this.loadOne(id).finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  private async loadOne(id: string): Promise<Conversation | undefined> {
    const [before, forgets] = [this.byId.get(id), this.forgets.get(id)];
    const stored = await this.store.conversations.get(id);
    // Dropped while it was read (replicas: its lease went), or a copy came meanwhile: the read installs nothing.
    if (this.forgets.get(id) !== forgets) return undefined;
    // A copy put to use while it was read again (a job appended to it) stays: the read is older than its use.
    if (this.byId.get(id) !== before || (before && !this.idle(id, new Map()))) return this.byId.get(id);
    if (stored === null) return undefined;
    // A conversation created meanwhile would be a fork of the stored one: `open` refuses while it is not resident.
    const { conversation, revision } = stored;
    if (!this.heads.has(id)) this.heads.add(id, conversation.principal);
    this.byId.set(id, conversation);
    this.next.set(id, revision);
    this.usedAt.set(id, this.trims);
    this.heads.recount(id, conversation.messages);
    this.log.debug('store.conversation.loaded', { ctx: id, messages: conversation.messages.length });
    return conversation;
  }

  /** Nothing of this replica rides on the resident copy: no commit on its way, no change unsaved, no job. */
  private idle(id: string, loading = this.loading): boolean {
    const held = [this.inFlight, this.dirty, this.folding, loading, this.opts.busy?.() ?? new Set()];
    return !held.some((set) => set.has(id));
  }

  isResident(id: string): boolean {
    return this.byId.has(id);
  }

  /** How many conversations are in memory now. */
  get residentCount(): number {
    return this.byId.size;
  }

  /**
   * Reserves the next revision of `conv` for a commit about to be enqueued. A refused commit rewinds it, so the
   * retry (and every commit queued behind the refused one) builds on what the store still holds.
   */
  prepare(conv: Conversation, foldOf?: string): PreparedCommit {
    this.dirty.delete(conv.id);
    const expectedRevision = this.next.get(conv.id) ?? 0;
    this.next.set(conv.id, expectedRevision + 1);
    this.inFlight.set(conv.id, (this.inFlight.get(conv.id) ?? 0) + 1);
    // What a fold in flight appended is written by that fold's own commit (a refused one marks the book dirty).
    const cap = this.folding.cap(conv.id, foldOf);
    if (foldOf !== undefined) this.folding.sent(foldOf, true);
    const refusedBefore = this.refused.get(conv.id) ?? 0;
    const stale = () => (this.refused.get(conv.id) ?? 0) !== refusedBefore;
    return {
      // The state as of now: the queued call runs later, after folds that append replies of their own.
      commit: { conversation: commitSnapshot(conv, cap), expectedRevision, stale },
      settled: (ok) => {
        if (foldOf !== undefined) this.folding.sent(foldOf, false);
        if (!ok) this.refused.set(conv.id, (this.refused.get(conv.id) ?? 0) + 1);
        const left = (this.inFlight.get(conv.id) ?? 1) - 1;
        if (left === 0) this.inFlight.delete(conv.id);
        else this.inFlight.set(conv.id, left);
        // A copy forgotten meanwhile (its lease went): what the store said of it says nothing of a copy read since.
        if (this.byId.get(conv.id) !== conv) return;
        if (ok) {
          if (foldOf !== undefined) this.folding.release(conv.id, foldOf);
          this.scheduleTrim();
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
    this.folding.hold(conv.id, eventId, conv.messages.length);
  }

  /** How many conversations exist, resident or not. */
  get size(): number {
    return this.heads.size;
  }

  /** Every resident conversation, in no particular order (those with an active goal always are). */
  list(): Conversation[] {
    return [...this.byId.values()];
  }

  /** The conversation when it is resident (a use marks it recent); undefined otherwise (`fetch` loads it). */
  get(id: string): Conversation | undefined {
    const conv = this.byId.get(id);
    if (conv === undefined) return undefined;
    this.byId.delete(id);
    this.byId.set(id, conv);
    this.usedAt.set(id, this.trims);
    return conv;
  }

  /**
   * The conversation, created (owned by `principal`) on first use. Throws for one that exists but is not
   * resident: creating it again would fork the stored one (its caller must `fetch` it first).
   */
  open(id: string, principal: string | null): Conversation {
    const existing = this.get(id);
    if (existing) return existing;
    if (this.heads.has(id)) throw new Error(`conversation ${id} is stored but not in memory: load it first`);
    // root always belongs to the operator, whoever touches it first.
    const root = id === 'root';
    const conv = newConversation(id, root ? 'root' : 'conversation', root ? 'operator' : principal, this.now());
    this.byId.set(id, conv);
    this.heads.add(id, conv.principal);
    this.usedAt.set(id, this.trims);
    this.dirty.add(id);
    return conv;
  }

  /**
   * A conversation a caller creates outside an accepted message (steering a fresh context, a side task): its
   * owner's `conversations` quota is checked first (`admitNew` throws). An existing resident one is returned.
   */
  create(id: string, owner: string | null): Conversation {
    if (!this.heads.has(id)) this.opts.admitNew?.(id, owner);
    return this.open(id, owner);
  }

  /** Appends `msgs` (notes, a turn's delta) in order; the conversation is written at the next checkpoint. */
  append(conv: Conversation, msgs: readonly Msg[]): void {
    if (msgs.length === 0) return;
    for (const msg of msgs) appendMessage(conv, msg, this.now());
    this.heads.grow(conv.id, msgs);
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
    this.folding.shift(conv.id, conv.messages.length - parts.messages.length);
    conv.summary = parts.summary;
    conv.messages = parts.messages;
    conv.version = parts.version;
    conv.updated = parts.updated;
    this.heads.recount(conv.id, conv.messages);
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
   * Appends a `[note]` and writes the conversation at once: the note is durable when the returned promise
   * resolves. A conversation it creates belongs to `owner` (never to nobody, which anyone could reach); an evicted
   * one is loaded first (a resident one takes the note at once, in order with the caller's other writes). A
   * load that fails is logged and tried again later (the promise then resolves once the note is written, or
   * after the last try failed): callers discard the promise, so it never rejects.
   */
  noteNow(id: string, text: string, owner: string | null, attempt = 0): Promise<void> {
    const write = (): Promise<void> => {
      const conv = this.open(id, owner);
      this.append(conv, [{ role: 'note', text, ts: this.now() }]);
      return this.saveNow(conv);
    };
    if (this.byId.has(id) || !this.heads.has(id)) return write();
    return this.fetch(id)
      .then(write)
      .catch((err: unknown) => {
        const delay = NOTE_RETRY_MS[attempt];
        this.log.error('store.checkpoint.fail', { ctx: id, err: describeError(err), note: true, retry: delay ?? null });
        if (delay === undefined) return;
        return new Promise<void>((resolve) => {
          setTimeout(() => resolve(this.noteNow(id, text, owner, attempt + 1)), delay).unref();
        });
      });
  }

  /**
   * Commits the conversation now (queued behind earlier writes): durable once the returned promise resolves, and
   * in any case before anything enqueued later. A refused write is logged and retried by the next checkpoint.
   */
  saveNow(conv: Conversation): Promise<void> {
    const prepared = this.prepare(conv);
    const { conversation, expectedRevision, stale } = prepared.commit;
    return this.store.conversations.commit(conversation, expectedRevision, stale).then(
      () => {
        prepared.settled(true);
        const attempts = this.refusals.committed(conv.id);
        if (attempts > 0) this.log.info('store.checkpoint.recovered', { ctx: conv.id, attempts });
      },
      (err: unknown) => {
        prepared.settled(false);
        if (this.refusals.refused(conv.id, this.now())) {
          this.log.error('store.checkpoint.fail', { ctx: conv.id, err: describeError(err) });
        }
      },
    );
  }

  /** Commits every changed conversation (one the store refuses stays dirty and the next step retries it); trims. */
  checkpoint(): void {
    if (this.dirty.size > 0) {
      const now = this.now();
      const due = [...this.dirty].filter((id) => this.refusals.due(id, now));
      const list = due.map((id) => this.byId.get(id)).filter((c) => c !== undefined);
      for (const conv of list) void this.saveNow(conv);
    }
    this.scheduleTrim();
  }

  /** A trim once the current burst of work has run (a macrotask later: what a step just fetched is in use). */
  private scheduleTrim(): void {
    if (this.trimQueued || this.byId.size === 0) return;
    this.trimQueued = true;
    setImmediate(() => {
      this.trimQueued = false;
      this.trim();
    });
  }

  /** Evicts the least recently used idle conversations while the resident set is over its limits. */
  trim(): void {
    const limits = this.opts.conversation_cache ?? DEFAULT_CONVERSATION_CACHE;
    const busy = this.opts.busy?.() ?? new Set<string>();
    const resident = [...this.byId.values()].map((conv) => ({
      id: conv.id,
      bytes: this.heads.bytesOf(conv.id),
      evictable: this.evictable(conv, busy),
    }));
    this.trims++;
    const evicted = planEviction(resident, limits);
    for (const id of evicted) this.forget(id);
    if (evicted.length > 0) {
      this.log.debug('store.conversations.evicted', { count: evicted.length, resident: this.byId.size });
    }
  }

  /**
   * Drops the resident copy and its unsaved changes: evicted, or another replica holds it now (`lost`, interfaces
   * §4.4: its head goes too when no commit of it is known to have stuck, so the store tells whether it exists).
   */
  forget(id: string, lost = false): void {
    const stored = (this.next.get(id) ?? 0) > (this.inFlight.get(id) ?? 0);
    for (const held of [this.byId, this.next, this.usedAt, this.dirty]) held.delete(id);
    this.forgets.set(id, (this.forgets.get(id) ?? 0) + 1);
    this.folding.forget(id);
    if (lost && !stored) this.heads.remove(id);
  }

  /**
   * Idle: nothing holds it (see `busy`), every change is written and settled (the store then holds exactly the
   * resident copy and its revision), not used since the last trim, and no pending work rides on it (an active
   * goal, notes waiting for a turn). A side task's link is stored with it: `side.promote` loads it again.
   */
  private evictable(conv: Conversation, busy: ReadonlySet<string>): boolean {
    const id = conv.id;
    if (busy.has(id) || this.dirty.has(id) || this.inFlight.has(id) || this.folding.has(id)) return false;
    return (this.usedAt.get(id) ?? 0) < this.trims && noPendingWork(conv);
  }
}
