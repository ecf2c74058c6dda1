// The Store interface: the durable inbox, conversations, A2A tasks, the memory tool's keys and the manifest.
// Only the supervisor calls it (one writer). Implementations: sqliteStore.ts (default), memoryStore.ts (tests).
import type { Msg } from '../protocol/messages.js';
import type { TurnStatus } from '../protocol/status.js';

export type InboxKind = 'a2a_message';

/** An accepted event. `ts` orders replay; `id` is a ULID kept across restarts. */
export interface InboxEvent {
  id: string;
  kind: InboxKind;
  ts: number;
  principal: string | null;
  payload: A2aMessagePayload;
  /** Optional dedupe key: a second accept with the same key is refused (used for the startup prompt). */
  dedupe_key?: string;
}

export interface A2aMessagePayload {
  context_id: string;
  text: string;
  msg_depth?: number;
  /** The A2A task this message answers (enough to rebuild the task record if a crash lost it). */
  task?: { id: string; context_id: string };
  /** The conversation whose message.send delivered this (its run's end may leave a wake note there). */
  from?: string;
  /** The mode captured when the message was accepted; absent = execute. */
  mode?: 'plan';
  /** `goal`: a continuation the conversation's goal started. */
  origin?: 'goal';
  /** The `created` stamp of the goal a continuation serves (a replaced goal's continuation is dropped). */
  goal_created?: number;
}

/** What the store knows about an inbox event. Done events keep their outcome so a restart can report it. */
export interface InboxRecord extends InboxEvent {
  status: 'pending' | 'done';
  outcome?: InboxOutcome;
}

export interface InboxOutcome {
  status: TurnStatus;
  reply: string;
  error?: string;
  finish_status?: string;
}

export interface PlanItem {
  id: number;
  title: string;
  detail?: string;
  status: 'pending' | 'in_progress' | 'done' | 'blocked' | 'skipped';
  note?: string;
  updated: number;
}

export interface Plan {
  goal: string;
  items: PlanItem[];
  next_id: number;
  created: number;
  updated: number;
}

export interface Summary {
  goals: string[];
  decisions: string[];
  open: string[];
  facts: string[];
  narrative?: string;
  covers_messages: number;
  updated: number;
}

/** What a goal's continuation has spent, and how it stands (seed 003 goals). */
export interface Goal {
  objective: string;
  /** Tokens the goal's turns may spend in all; null = no cap of its own. */
  token_budget: number | null;
  status: 'active' | 'achieved' | 'stuck' | 'budget_limited' | 'stopped';
  /** Why continuation stopped (a cancel, a budget refusal), when status is stopped. */
  reason?: string;
  /** Turns and tokens spent while the goal was active. */
  turns: number;
  tokens: number;
  /** Continuations so far, and how many in a row called no tool. */
  continuations: number;
  idle_streak: number;
  evidence?: string;
  /** Set once the achieving turn itself is counted (the final accounting). */
  accounted?: boolean;
  created: number;
  updated: number;
}

/** How a caller steers a conversation: its mode, its goal, and whether it is a side task of another. */
export interface ConversationControls {
  /** `plan`: only read-only tools run and the turn ends with a proposal. Default execute. */
  mode: 'plan' | 'execute';
  goal: Goal | null;
  /** The parent a side task reports back to; null once promoted (or for a normal conversation). */
  side_of: string | null;
  /** The newest plan-mode proposal, kept apart from the plan checklist. */
  proposal: { text: string; turn: string; ts: number } | null;
  /** Notes that arrived while a turn of the conversation ran: appended after its fold. */
  pending_notes?: string[];
}

/** A conversation (reference §2.3). `version` changes only on compaction. */
export interface Conversation {
  id: string;
  kind: 'root' | 'conversation';
  version: number;
  summary: Summary | null;
  messages: Msg[];
  plan: Plan | null;
  principal: string | null;
  turns: number;
  created: number;
  updated: number;
  /** Absent until a caller steers the conversation (plan mode, a goal, a side task). */
  controls?: ConversationControls;
  /** Names of the skills loaded on this conversation (reference §8.4); absent = none. */
  skills?: string[];
}

export interface MemoryEntry {
  key: string;
  value: unknown;
  /** Epoch ms after which the entry reads as absent; null = never. */
  expires: number | null;
  updated: number;
}

/** A2A task states (reference §17.2); the last four are terminal and never change again. */
export type TaskState = 'submitted' | 'working' | 'input_required' | 'completed' | 'failed' | 'canceled' | 'rejected';

/** A durable A2A task, linked to the inbox event (and so the turn) that answers it. */
export interface TaskRecord {
  /** Unique across restarts (a ULID). */
  id: string;
  /** The caller's context id (the conversation it names, in the caller's own namespace). */
  context_id: string;
  /** The internal conversation the task's turns run in. */
  conversation: string;
  state: TaskState;
  principal: string;
  /** The inbox event whose turn answers it; null for deterministic replies (commands). */
  inbox_event: string | null;
  /** The status message text (the reply, an error, or the question asked). */
  message: string | null;
  /** The reply as the task's artifact text; null until completed. */
  result: string | null;
  /** An open question to a person (ask_human, a policy `ask`): answered by a SendMessage with this task's id. */
  question: { id: string; text: string; schema?: Record<string, unknown>; answer?: string } | null;
  history: Array<{ state: TaskState; ts: number }>;
  created: number;
  updated: number;
}

/** Which tasks `listTasks` returns: a principal's (all when null), optionally in one context, at most `limit`. */
export interface TaskFilter {
  principal: string | null;
  context_id?: string;
  limit: number;
}

/**
 * One durable budget counter (reference §10.2): the bucket `index` of window `window` (a governor window key, or
 * `lifetime`) in `scope`, and what it has counted. Reserved amounts are never stored.
 */
export interface BudgetCounter {
  scope: string;
  window: string;
  index: number;
  tokens: number;
  requests: number;
}

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
