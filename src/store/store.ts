// The Store interface: the durable inbox, conversations, A2A tasks, the memory tool's keys and the manifest.
// Only the supervisor calls it (one writer). Implementations: sqliteStore.ts (default), memoryStore.ts (tests).
import type { BudgetCounter } from '../domain/budget.js';
import type { Conversation } from '../domain/conversation.js';
import type { InboxEvent, InboxOutcome, InboxRecord } from '../domain/inbox.js';
import type { MemoryEntry } from '../domain/memory.js';
import type { TaskFilter, TaskRecord } from '../domain/task.js';

export interface Store {
  readonly kind: 'sqlite' | 'memory';
  /** Human-readable location (the database file path, or ":memory:"). */
  readonly location: string;
  /** The manifest's generation counter, bumped once when this store was opened. */
  readonly generation: number;

  /** Commits the event durably (fsync) before returning. Returns false when `dedupe_key` is already taken. */
  acceptInbox(event: InboxEvent): boolean;
  /** Marks an event done and records its outcome. Idempotent. */
  markInboxDone(id: string, outcome?: InboxOutcome): void;
  /**
   * Saves the conversations and marks the event done in ONE transaction: a crash leaves either both (the turn is
   * answered) or neither (the event replays into an unchanged transcript). Used when a turn folds back.
   * `task`, when given, is saved in the same transaction (the task's terminal state lands with its transcript).
   */
  completeInbox(id: string, outcome: InboxOutcome, conversations: Conversation[], task?: TaskRecord): void;
  /** Pending events in replay order (ts, then id). */
  pendingInbox(): InboxEvent[];
  /** The event with this id, pending or done, or null. */
  findInbox(id: string): InboxRecord | null;
  /** The event holding `dedupe_key`, pending or done, or null. */
  findInboxByDedupe(dedupeKey: string): InboxRecord | null;

  /** Every stored conversation. */
  loadConversations(): Conversation[];
  /** Writes the conversations in one transaction (appends new messages; rewrites on a version change). */
  saveConversations(conversations: Conversation[]): void;

  memoryGet(key: string, now: number): MemoryEntry | null;
  memorySet(entry: MemoryEntry): void;
  /** Keys with `prefix`, sorted, at most `limit`; `truncated` when more exist. Expired entries excluded. */
  memoryList(prefix: string, limit: number, now: number): { keys: string[]; truncated: boolean };
  /** Returns whether the key existed. */
  memoryDelete(key: string): boolean;

  /** Inserts or replaces a task (synchronously durable). */
  saveTask(task: TaskRecord): void;
  getTask(id: string): TaskRecord | null;
  /** Tasks of a principal (all when null), newest first (`updated`, then id), optionally in one context. */
  listTasks(filter: TaskFilter): TaskRecord[];
  /** The task an inbox event answers, or null. */
  taskForEvent(eventId: string): TaskRecord | null;

  /** Every stored budget counter. */
  loadBudgetCounters(): BudgetCounter[];
  /** Writes these counters (insert or replace by scope and window) in one transaction. */
  saveBudgetCounters(counters: BudgetCounter[]): void;

  /** A monotonically increasing counter (turn ids unique across restarts). */
  nextSequence(name: string): number;

  close(): void;
}
