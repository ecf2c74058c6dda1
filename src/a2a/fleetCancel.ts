// CancelTask on a replica that does not run the task's turn (issue 19; interfaces reference §4.4): the cancel is a
// durable request the conversation's lease holder acts on (woken by NOTIFY, else at its next sweep); this replica
// answers once the store shows the task ended.
import type { TaskRecord } from '../domain/task.js';
import type { Store } from '../store/store.js';
import { isTerminal } from './tasks.js';
import { CANCEL_FOLD_MS } from './taskWatchers.js';

/** The first gap between reads of the task, doubled after each read up to the longest. */
const FIRST_READ_MS = 100;
const LONGEST_READ_MS = 1_000;

/**
 * Null when this instance runs the task's conversation (one process, or the lease holder among replicas);
 * otherwise stores the request and resolves with the ended task, or null once `waitMs` passed on `now`.
 */
export function cancelElsewhere(
  store: Store,
  task: TaskRecord,
  principal: string,
  waitMs: number = CANCEL_FOLD_MS,
  now: () => number = Date.now,
): Promise<TaskRecord | null> | null {
  if (store.fleet === undefined || store.leases?.holds(task.conversation) === true) return null;
  return cancelThroughFleet(store, store.fleet, task, principal, waitMs, now);
}

/** Stores the cancel request and wakes the fleet; resolves with the ended task, or null once `waitMs` passed. */
export function cancelThroughFleet(
  store: Store,
  fleet: NonNullable<Store['fleet']>,
  task: TaskRecord,
  principal: string,
  waitMs: number,
  now: () => number,
): Promise<TaskRecord | null> {
  return (async () => {
    await fleet.requestCancel(task.id, principal);
    // No NOTIFY carries a task's end (the fleet's channels are new inbox work and cancel requests), so the store is
    // read; the gaps grow, so a long fold costs a few reads, and `waitMs` bounds them.
    const until = now() + waitMs;
    for (let gap = FIRST_READ_MS; now() < until; gap = Math.min(gap * 2, LONGEST_READ_MS)) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(gap, Math.max(0, until - now()))));
      const read = await store.tasks.get(task.id);
      if (read !== null && isTerminal(read.state)) return read;
    }
    return null;
  })();
}
