// Rules every backend applies, so each behaves alike: the idempotency scope of an inbox key, the replay order,
// the revision check of a conversation commit, and how a budget delta adds to a stored counter. Pure: no I/O.
import type { BudgetCounter } from '../domain/budget.js';
import type { InboxEvent } from '../domain/inbox.js';
import type { SubagentRecord } from '../domain/subagent.js';
import type { TaskRecord, TaskState } from '../domain/task.js';
import { DaemonError } from '../errors.js';
import { compareKeys } from './memoryKeys.js';

/** Replay order: by `ts`, then by id. */
export function compareInbox(a: InboxEvent, b: InboxEvent): number {
  if (a.ts !== b.ts) return a.ts - b.ts;
  return compareKeys(a.id, b.id);
}

/** The stored form of a dedupe key: scoped to its principal, so another principal's identical key is distinct. */
export function scopedKey(principal: string | null, key: string): string {
  return `${principal ?? ''}\n${key}`;
}

/** The error for a commit on top of a revision the store no longer holds (another writer moved on). */
function staleRevision(id: string, expected: number, stored: number): DaemonError {
  return new DaemonError(
    'store_conflict',
    `conversation ${id}: commit expected revision ${expected} but the store holds ${stored}`,
  );
}

/** Throws staleRevision unless the store still holds `expected` (0 = absent). */
export function checkRevision(id: string, expected: number, stored: number): void {
  if (stored !== expected) throw staleRevision(id, expected, stored);
}

/**
 * `delta` added to `stored` (same scope and window): the same bucket sums, a newer bucket starts over from the
 * delta, an older bucket leaves the stored counter as it is.
 */
export function addCounter(stored: BudgetCounter | undefined, delta: BudgetCounter): BudgetCounter {
  if (stored === undefined || delta.index > stored.index) return { ...delta };
  if (delta.index < stored.index) return stored;
  return { ...stored, tokens: stored.tokens + delta.tokens, requests: stored.requests + delta.requests };
}

/** The states a stored task never leaves (the SQLite statement saveTask lists the same). */
const TERMINAL: readonly TaskState[] = ['completed', 'failed', 'canceled', 'rejected'];

/** True when a task write must leave `stored` as it is: a terminal task never changes (the first end wins). */
export function keepsTask(stored: TaskRecord | undefined): boolean {
  return stored !== undefined && TERMINAL.includes(stored.state);
}

/** Subagent records in listing order: oldest first, then by handle. */
export function bySubagentAge(a: SubagentRecord, b: SubagentRecord): number {
  if (a.created !== b.created) return a.created - b.created;
  return a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0;
}
