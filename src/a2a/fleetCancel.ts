// CancelTask on a replica that does not run the task's turn (issue 19; interfaces reference §4.4): the cancel is a
// durable request the conversation's lease holder acts on (woken by NOTIFY, else at its next sweep); this replica
// answers once the store shows the task ended.
import type { TaskRecord } from '../domain/task.js';
import type { Store } from '../store/store.js';
import { isTerminal } from './tasks.js';
import { CANCEL_FOLD_MS } from './taskWatchers.js';

/** How often the store is read for the task's end meanwhile. */
const READ_EVERY_MS = 100;

/**
 * Null when this instance runs the task's conversation (one process, or the lease holder among replicas);
 * otherwise stores the request and resolves with the ended task, or null once `waitMs` passed.
 */
export function cancelElsewhere(
  store: Store,
  task: TaskRecord,
  principal: string,
  waitMs = CANCEL_FOLD_MS,
): Promise<TaskRecord | null> | null {
  if (store.fleet === undefined || store.leases?.holds(task.conversation) === true) return null;
  const fleet = store.fleet;
  return (async () => {
    await fleet.requestCancel(task.id, principal);
    const until = Date.now() + waitMs;
    while (Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
      const now = await store.tasks.get(task.id);
      if (now !== null && isTerminal(now.state)) return now;
    }
    return null;
  })();
}
