// CancelTask on a replica that does not run the task's turn (issue 19; interfaces reference §4.4): the cancel is a
// durable request the conversation's lease holder acts on (woken by NOTIFY, else at its next sweep); this replica
// answers once the store shows the task ended.
import type { TaskRecord } from '../domain/task.js';
import { readUntil } from '../store/readUntil.js';
import type { Store } from '../store/store.js';
import { isTerminal } from './tasks.js';
import { CANCEL_FOLD_MS } from './taskWatchers.js';

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
    // No NOTIFY carries a task's end (the fleet's channels are new inbox work and cancel requests): the store is read.
    return readUntil(
      async () => {
        const read = await store.tasks.get(task.id);
        return read !== null && isTerminal(read.state) ? read : null;
      },
      waitMs,
      now,
    );
  })();
}
