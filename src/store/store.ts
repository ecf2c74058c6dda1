// The Store's ports, one per aggregate and unit of work: the inbox, conversations, budget counters, A2A tasks, the
// memory tool's keys, sequences, subagent records (with their whole results and spawn log). Every method returns a
// Promise so a networked backend fits behind the same contract. Implementations: sqliteStore.ts (default),
// memoryStore.ts (tests), postgresStore.ts (replicas); test/unit/store/storeBehaviour.ts is the contract every
// backend passes.

import type { Conversation } from '../domain/conversation.js';
import type { FeedBounds, FeedEntry, FeedEvent } from '../domain/feed.js';
import type { InboxEvent, InboxOutcome, InboxRecord } from '../domain/inbox.js';
import type { JournalEntry } from '../domain/journal.js';
import type { MemoryEntry } from '../domain/memory.js';
import type { SubagentRecord } from '../domain/subagent.js';
import type { TaskFilter, TaskRecord } from '../domain/task.js';
import type { TimerRecord } from '../domain/timer.js';
import type { StoredDefinition, WorkflowRun } from '../domain/workflow.js';
import type { BudgetPort } from './budgetPort.js';
import type { MemoryListing } from './memoryKeys.js';

export type { BudgetHold, BudgetPort, SharedAdmission } from './budgetPort.js';

/** What `inbox.accept` did: `created` false when the event's id or (principal, dedupe_key) was already taken. */
export interface Accepted {
  /** The stored record: the new event, or the one that already held the key (with its status and outcome). */
  record: InboxRecord;
  created: boolean;
}

/** A conversation to write, on top of the revision the writer last saw (0 = the writer believes it is new). */
export interface ConversationCommit {
  conversation: Conversation;
  expectedRevision: number;
  /**
   * True once a commit of the same copy asked for before this one was refused: this one built on a revision that
   * was never written, so a shared store refuses it even when another writer's commit made the numbers match.
   */
  stale?: (() => boolean) | undefined;
}

/** A fold's unit of work: the event's outcome, its conversations' new state and the task's terminal state. */
export interface FoldCommit {
  outcome: InboxOutcome;
  conversations: ConversationCommit[];
  task?: TaskRecord;
  /** The client feed's entries of this fold (the task's end, the reply), appended in its transaction (issue 18). */
  feed?: readonly FeedEntry[];
}

/** A stored conversation and its commit revision (bumped by every commit; compaction also bumps `version`). */
export interface StoredConversation {
  conversation: Conversation;
  revision: number;
}

export interface InboxPort {
  /**
   * Commits the event (and `task`, the record that follows it, in the same transaction) durably before resolving.
   * A duplicate (same id, or same dedupe_key from the same principal) writes nothing and resolves with the record
   * that holds it.
   */
  accept(event: InboxEvent, task?: TaskRecord): Promise<Accepted>;
  /**
   * Leases pending events to `owner` for `leaseMs` and returns them in replay order (ts, then id): those without a
   * live lease, and those `owner` already holds (a restarted owner takes its own events back at once).
   */
  claim(owner: string, leaseMs: number, now: number): Promise<InboxEvent[]>;
  /**
   * Marks the event done with its outcome, writes the conversations and the task, in ONE transaction: a crash
   * leaves all or nothing. Rejects with a StaleRevision (writing nothing) when a conversation moved on. Resolves
   * with the conversations' new revisions, in order.
   */
  complete(eventId: string, fold: FoldCommit): Promise<number[]>;
  /** The event with this id, pending or done, or null. */
  find(id: string): Promise<InboxRecord | null>;
  /** The event holding (principal, dedupe_key), pending or done, or null. */
  findByKey(principal: string | null, dedupeKey: string): Promise<InboxRecord | null>;
}

/** A stored conversation without its messages: what start-up and the quotas need of every conversation. */
export interface ConversationHead {
  id: string;
  principal: string | null;
  revision: number;
  /** The stored messages' size: the UTF-8 bytes of their JSON, summed. */
  bytes: number;
  /** Its goal is active: pending work, so the restore loads it. */
  activeGoal: boolean;
}

export interface ConversationsPort {
  /** Every stored conversation with its revision, ordered by id. */
  load(): Promise<StoredConversation[]>;
  /** One stored conversation with its revision, or null (loads on demand; the rest stay on disk). */
  get(id: string): Promise<StoredConversation | null>;
  /** Every stored conversation's head, ordered by id; no message is read into memory. */
  heads(): Promise<ConversationHead[]>;
  /**
   * Writes the conversation (appends new messages; rewrites on a version change) when the stored revision is
   * still `expectedRevision`; rejects with a StaleRevision otherwise. Resolves with the new revision. `stale`: as
   * in ConversationCommit.
   */
  commit(conversation: Conversation, expectedRevision: number, stale?: () => boolean): Promise<number>;
}

export interface TasksPort {
  /** Inserts or replaces a task, durably. */
  save(task: TaskRecord): Promise<void>;
  /**
   * Replicas: a client's answer (or re-ask) stored over the task exactly as `read` found it, whatever replica holds
   * its conversation — a request the holder applies, never fenced by a lease this replica lost. Refused
   * (store_conflict, retryable) when the task changed since (its state, `updated` or open question's id).
   * Absent: `save` (one process, no fence).
   */
  saveAnswer?(task: TaskRecord, read: Pick<TaskRecord, 'state' | 'updated' | 'question'>): Promise<void>;
  get(id: string): Promise<TaskRecord | null>;
  /** Tasks of a principal (all when null), newest first (`updated`, then id), optionally in one context or state. */
  list(filter: TaskFilter): Promise<TaskRecord[]>;
  /** How many tasks the filter selects, its `after` and `limit` aside (a listing's total). */
  count(filter: Omit<TaskFilter, 'after' | 'limit'>): Promise<number>;
  /** The task an inbox event answers, or null. */
  forEvent(eventId: string): Promise<TaskRecord | null>;
  /** The principal's newest task (by id) that started a turn (it has an inbox event), or null. */
  latestTurn(principal: string): Promise<TaskRecord | null>;
  /**
   * Deletes terminal tasks past retention: those beyond the newest `keep` terminal ones (by `updated`, then id),
   * and those last updated before `before`. A task still running is never deleted. Resolves with how many went.
   */
  prune(keep: number, before: number): Promise<number>;
}

/** A memory key changed: its new entry, or null when it was deleted. */
export type MemoryChange = { key: string; entry: MemoryEntry | null };

export interface MemoryPort {
  get(key: string, now: number): Promise<MemoryEntry | null>;
  set(entry: MemoryEntry): Promise<void>;
  /** Keys with `prefix`, sorted, at most `limit`; `truncated` when more exist. Expired entries excluded. */
  list(prefix: string, limit: number, now: number): Promise<MemoryListing>;
  /** Resolves with whether the key existed. */
  delete(key: string): Promise<boolean>;
  /** Calls `listener` after every committed set or delete; returns the unsubscribe. */
  onChange(listener: (change: MemoryChange) => void): () => void;
}

export interface SequencesPort {
  /**
   * Advances a monotonically increasing counter (turn ids unique across restarts) by `count` (default 1) and
   * resolves with its new value: the last of the `count` values reserved.
   */
  next(name: string, count?: number): Promise<number>;
}

/** The client feed (issue 18): events numbered in append order, read after a cursor, dropped by retention. */
export interface FeedPort {
  /** Numbers and stores the entries in one transaction, in order; resolves with them numbered. */
  append(entries: readonly FeedEntry[]): Promise<FeedEvent[]>;
  /** Up to `limit` retained events with seq > `after`, in seq order. */
  after(after: number, limit: number): Promise<FeedEvent[]>;
  bounds(): Promise<FeedBounds>;
  /** Drops events beyond the newest `keep` and those older than `before` (ts); resolves with how many went. */
  prune(keep: number, before: number): Promise<number>;
}

/** A subagent's whole result text, kept when its distilled result was cut (reference §5 item 24). */
export interface StoredResult {
  /** Which result of the subagent it is (a warm session's run; 1 for a one-shot subagent). */
  run: number;
  body: string;
}

/** When a subagent was last spawned or ended (what `limits.subagents.total` counts, spawnLog.ts). */
export interface SpawnActivity {
  handle: string;
  at: number;
}

/** Subagent records by handle (reference §1.6): written whenever one changes, read back at restore. */
export interface SubagentsPort {
  /** Inserts or replaces the record with this handle, durably. */
  save(record: SubagentRecord): Promise<void>;
  /**
   * Saves these records in one transaction: a charge's spender (its usage) and every calling subagent above it
   * (its subtree spend), so a crash keeps all or none of one charge (the subtree ceiling, reference §5 item 24).
   * `spent` (replicas): the charge's tokens. The first record is then written fenced by its lease, and `spent` is
   * added to the stored subtree spend of each, in place, rather than the callers' records rewritten from this
   * replica's copies (another replica may run a caller).
   */
  saveAll(records: readonly SubagentRecord[], spent?: number): Promise<void>;
  /** Every stored record, ordered by `created`, then handle. */
  list(): Promise<SubagentRecord[]>;
  /** Deletes the records with these handles and their stored results; unknown handles are ignored. */
  remove(handles: readonly string[]): Promise<void>;
  /** Stores the whole text of a cut result, durably; it replaces the handle's earlier one. */
  saveResult(handle: string, result: StoredResult): Promise<void>;
  /** The handle's stored whole result, or null. */
  readResult(handle: string): Promise<StoredResult | null>;
  /**
   * Notes the handle's activity at `at` (replacing its earlier one) and forgets every entry older than
   * `forgetBefore`, in one transaction. Kept apart from the records: removing a record leaves its entry.
   */
  noteActivity(handle: string, at: number, forgetBefore: number): Promise<void>;
  /** Every entry at or after `since`, ordered by handle. */
  activity(since: number): Promise<SpawnActivity[]>;
}

/**
 * Workflow runs and runtime-created definitions (producers reference §2.11): one JSON record each. Runs are keyed
 * by id and by the key of the event that started them, so a replayed start finds its run instead of making one.
 */
export interface WorkflowsPort {
  /** Inserts the run unless its id or start key is taken; resolves with the stored record and whether it is new. */
  createRun(run: WorkflowRun): Promise<{ run: WorkflowRun; created: boolean }>;
  /** Replaces the stored run with this id, durably. */
  saveRun(run: WorkflowRun): Promise<void>;
  getRun(id: string): Promise<WorkflowRun | null>;
  /** Runs ordered by `created`, then id; `live` = only running or paused ones. */
  listRuns(filter: { live?: boolean }): Promise<WorkflowRun[]>;
  /**
   * Replicas: takes the live runs no replica owns live (never owned, or their owner's hold ran out: it died) and
   * resolves with them, ordered as `listRuns`; this replica drives them from now on. Absent: one process owns all.
   */
  claimRuns?(): Promise<WorkflowRun[]>;
  /** Replicas: gives back a claimed run not driven here; `onRunLost`: the heartbeat found it owned elsewhere. */
  releaseRun?(id: string): Promise<void>;
  onRunLost?(lost: (id: string) => void): void;
  /** Deletes the terminal runs among `ids` (a live one stays), and with them their start keys; resolves with how many. */
  deleteRuns(ids: readonly string[]): Promise<number>;
  /** Appends one definition version (a `workflow.create` / `update`, or a deletion's tombstone). */
  saveDefinition(def: StoredDefinition): Promise<void>;
  /** The newest version of every stored definition (tombstones included), ordered by name. */
  listDefinitions(): Promise<StoredDefinition[]>;
}

/**
 * Durable timers (producers reference §3.8) and the keys of firings already made (a schedule's occurrence, a
 * webhook's idempotency key), so a firing survives a restart once.
 */
export interface TimersPort {
  /** Inserts or replaces the timer with this id, durably. */
  arm(timer: TimerRecord): Promise<void>;
  /** Every stored timer, ordered by due, then id. */
  list(): Promise<TimerRecord[]>;
  /**
   * Deletes timer `id` and arms `next` (when given) in one transaction: a firing and the timer it leads to.
   * Resolves with whether `id` was still stored.
   */
  settle(id: string, next?: TimerRecord): Promise<boolean>;
  /** Deletes every timer of `owner`; resolves with how many there were. */
  cancelOwner(owner: string): Promise<number>;
  /** Whether `key` was remembered. */
  seen(key: string): Promise<boolean>;
  /**
   * Remembers `key` (at `at`, epoch ms) durably; remembering it again changes nothing. Resolves with whether this
   * call remembered it (insert-if-absent): the one caller that gets true owns what the key stands for.
   */
  remember(key: string, at: number): Promise<boolean>;
  /** Forgets the keys starting with `prefix` remembered before `before` (epoch ms); resolves with how many. */
  forget(prefix: string, before: number): Promise<number>;
}

/** The tool journal (issue 19 item 3): completed tool calls by idempotency key, so a rerun does not repeat them. */
export interface JournalPort {
  /** Records a completed call durably; a key already recorded keeps its first entry (resolves false). */
  record(entry: JournalEntry): Promise<boolean>;
  /** The entries whose key starts with `prefix` (one message's calls), ordered by key. */
  list(prefix: string): Promise<JournalEntry[]>;
  /**
   * Retention: removes the entries recorded before `before` (epoch ms) whose message is no longer pending (its turn
   * finished, so no rerun will look them up); resolves with how many went.
   */
  prune(before: number): Promise<number>;
}

/** The Store's ports by name: the wrappers (commit order, latency) wrap each one; a new port is added here once. */
export const STORE_PORTS = [
  'inbox',
  'conversations',
  'budget',
  'tasks',
  'memory',
  'sequences',
  'subagents',
  'workflows',
  'timers',
  'feed',
  'journal',
] as const;

/**
 * What the supervisor sees of a shared store's conversation leases (replicas, interfaces reference §4.4): whether
 * this replica holds a conversation now, and which ones it lost (another replica adopted it, a write was fenced, or
 * its hold ran out unrenewed) so it stops their work and writes nothing more for them.
 */
export interface LeaseView {
  holds(conversation: string): boolean;
  /** Calls `listener` once per conversation lost; returns the unsubscribe. */
  onLost(listener: (conversation: string) => void): () => void;
  /** Drops the holds whose time ran out unrenewed (each is reported lost). */
  expire(): void;
  /** The lease length the holds renew on (ms); 0 before the first claim. */
  readonly leaseMs: number;
  /** Conversations held now. */
  held(): ReadonlyMap<string, unknown>;
  /** Since start: leases taken from an expired holder, writes the fence refused. */
  readonly counts: { readonly adoptions: number; readonly fenced: number };
  /** When the earliest lease another replica holds on pending work runs out (the claim's clock), or null. */
  nextForeignExpiry?(): number | null;
  /** Calls `listener` for each conversation a claim takes (this replica did not hold it); returns the unsubscribe. */
  onTaken?(listener: (conversation: string) => void): () => void;
  /**
   * Extends the live holds at their epochs, straight on the database: not queued behind the replica's other store
   * calls (a claim is), so a busy replica does not lose the conversations it is running for want of a turn.
   */
  heartbeat?(): Promise<void>;
  /** Whether another replica holds the conversation's lease live now (a read, straight on the database). */
  heldElsewhere?(conversation: string): Promise<boolean>;
}

/** An operator command every replica applies. */
export type FleetControl = 'pause' | 'resume';

/** A NOTIFY another replica (or this one) sent: new pending work, or a cancel request; `lagMs` since it was sent. */
export interface FleetSignal {
  channel: 'inbox' | 'cancel' | 'answer' | 'control';
  /** `control`: the operator's pause or resume, which every replica applies. */
  op?: FleetControl;
  lagMs: number;
}

/**
 * Replicas (interfaces reference §4.4): what the others tell this one between sweeps (LISTEN/NOTIFY), and the
 * durable cancel requests any replica stores and the conversation's lease holder acts on.
 */
export interface FleetView {
  /** Hears each signal; returns the unsubscribe. */
  onSignal(listener: (signal: FleetSignal) => void): () => void;
  /** Stores a cancel request for the task's turn (whichever replica runs it acts on it) and wakes the fleet. */
  requestCancel(taskId: string, principal: string | null): Promise<void>;
  /** Wakes the fleet: a task's question was answered here, and the replica whose turn waits on it takes it. */
  announceAnswer(): Promise<void>;
  /**
   * Stores the operator's pause or resume for the fleet (a replica started later, or one whose listener was down,
   * reads it) and tells every replica (this one too) to apply it.
   */
  announceControl(op: FleetControl): Promise<void>;
  /** The fleet's stored pause or resume (null: none was ever given). */
  readControl(): Promise<FleetControl | null>;
  /** This replica's name among the replicas (its lease holder's name). */
  readonly replica: string;
  /**
   * The cancel requests for conversations this replica holds: `act(inboxEvent)` cancels the event's turn here and
   * says whether it knew it; known ones and those whose task ended are removed. Resolves with how many went.
   */
  takeCancels(act: (inboxEvent: string) => boolean): Promise<number>;
  /**
   * The cancel requests for tasks that follow a workflow run (an `a2a` start's): `act(run)` cancels the run if it
   * is live here; those it cancelled are removed. Resolves with how many went.
   */
  takeRunCancels(act: (run: string) => Promise<boolean>): Promise<number>;
  /** Stores a cancel request for workflow run `run` (live at another replica) and wakes the fleet. */
  requestRunCancel(run: string, reason: string): Promise<void>;
  /**
   * The cancel requests for workflow runs: `act(run, reason)` cancels the run if it is live here; those it
   * cancelled, and those whose run ended or is gone, are removed. Resolves with how many went.
   */
  takeRunRequests(act: (run: string, reason: string) => Promise<boolean>): Promise<number>;
  /** Stores a cancel request for subagent `handle` (whichever replica runs it acts on it) and wakes the fleet. */
  requestSubagentCancel?(handle: string, reason: string): Promise<void>;
  /**
   * The subagent cancel requests: `act(handle, reason)` cancels the subagent if it runs here; those it cancelled
   * and those whose subagent ended (or is gone) are removed. Resolves with how many went.
   */
  takeSubagentCancels?(act: (handle: string, reason: string) => boolean): Promise<number>;
}

export interface Store {
  readonly kind: 'sqlite' | 'memory' | 'postgres';
  /** Conversation leases when replicas share the store (postgres); absent for a store one process owns. */
  readonly leases?: LeaseView;
  /** Replicas: NOTIFY wake-ups and cross-replica cancel requests (postgres). */
  readonly fleet?: FleetView;
  /** Human-readable location (the database file path, or ":memory:"). */
  readonly location: string;
  /** The manifest's generation counter, bumped once when this store was opened. */
  readonly generation: number;
  /** The integrity check run at open (sqlite, an existing file, not `off`): its mode and how long it took. */
  readonly checked?: { mode: 'quick' | 'full'; ms: number } | null;
  readonly inbox: InboxPort;
  readonly conversations: ConversationsPort;
  readonly budget: BudgetPort;
  readonly tasks: TasksPort;
  readonly memory: MemoryPort;
  readonly sequences: SequencesPort;
  readonly subagents: SubagentsPort;
  readonly workflows: WorkflowsPort;
  readonly timers: TimersPort;
  readonly feed: FeedPort;
  readonly journal: JournalPort;
  close(): Promise<void>;
}
