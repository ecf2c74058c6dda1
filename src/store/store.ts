// The Store interface: the durable inbox, conversations, the memory tool's keys and the manifest.
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
}

export interface MemoryEntry {
  key: string;
  value: unknown;
  /** Epoch ms after which the entry reads as absent; null = never. */
  expires: number | null;
  updated: number;
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
   */
  completeInbox(id: string, outcome: InboxOutcome, conversations: Conversation[]): void;
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

  /** A monotonically increasing counter (turn ids unique across restarts). */
  nextSequence(name: string): number;

  close(): void;
}
