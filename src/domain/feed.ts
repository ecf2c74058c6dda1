// The client feed's events (issue 18 item 1): what a client of the daemon sees happen, in one durable sequence.
// Plain data only; the A2A side publishes them (a2a/feedHub.ts) and serves them (a2a/feedRoute.ts).

/**
 * What happened: a message in a conversation, a turn's activity, a tool card, a plan checklist change, a
 * question waiting and its answer, a task's state, and the instance's pause/drain state.
 */
export type FeedKind = 'message' | 'turn' | 'activity' | 'tool' | 'plan' | 'question' | 'answer' | 'task' | 'state';

/** Everyone may see it (instance state). */
export const AUDIENCE_ALL = '*';

/** An event before the store numbers it. */
export interface FeedEntry {
  /** Epoch milliseconds. */
  ts: number;
  kind: FeedKind;
  /** Who may see it besides the operator: a principal id, AUDIENCE_ALL, or null (operators only). */
  audience: string | null;
  data: Record<string, unknown>;
}

/** A stored event: `seq` is monotonic across restarts and never reused, even after retention dropped events. */
export interface FeedEvent extends FeedEntry {
  seq: number;
}

/** The retained range: `oldest` null when nothing is retained; `newest` the highest seq ever given (0 = none). */
export interface FeedBounds {
  oldest: number | null;
  newest: number;
}
