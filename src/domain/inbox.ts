// Inbox events: what a producer hands the runtime (one durable accept each), and how each one ended.
// Plain data only: no I/O, no imports from store/ or supervisor/.
import type { TurnErrorKind, TurnStatus } from '../protocol/status.js';

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
  /** Where `error` came from; records stored before kinds existed lack it (read them with `errorKindOf`). */
  error_kind?: TurnErrorKind;
  finish_status?: string;
}
