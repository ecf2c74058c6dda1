// How CancelTask ends a task: a turn's is cancelled (here or on the replica holding it) and the task follows its fold;
// an `a2a` start's run is cancelled and the task follows its end; a task nothing else ends (a noted message, a `human`
// step's question) is canceled at once. Checks no ownership.
import type { TaskRecord } from '../domain/task.js';
import type { SupervisorPort } from '../runtime/producer.js';
import type { Store } from '../store/store.js';
import type { A2aStarts } from '../triggers/a2aStarts.js';
import { BackendError } from './backend.js';
import { cancelElsewhere, cancelThroughFleet } from './fleetCancel.js';
import type { TaskRecords } from './taskRecords.js';
import { isTerminal, taskOrigin, transition } from './tasks.js';

/** What cancelling a turn's task needs besides: the store (to read the task again) and the supervisor. */
export type TurnCancelDeps = TaskCancelDeps & { store: Store; supervisor: Pick<SupervisorPort, 'cancelEvent'> };

export interface TaskCancelDeps {
  records: TaskRecords;
  now(): number;
  starts?: A2aStarts | undefined;
  /** How long a cancel waits for the run's end to reach the task. */
  waitMs: number;
}

/** The task a cancel ended; one that ended otherwise first is not cancelable (a wait that timed out: as it is). */
export function canceledOrThrow(task: TaskRecord, ended: boolean): TaskRecord {
  if (ended && task.state !== 'canceled') throw new BackendError('not_cancelable', `task is already ${task.state}`);
  return task;
}

/** Cancels a task nothing else ends: the store keeps a terminal state, so an end that came first stays. */
export async function cancelHere(deps: TaskCancelDeps, task: TaskRecord): Promise<TaskRecord> {
  const canceled = transition(task, 'canceled', deps.now(), { message: 'canceled by the caller' }) ?? task;
  return canceledOrThrow(await deps.records.save(canceled), true);
}

/**
 * An `a2a` start's task (producers reference §3.7): its run is cancelled, and the task ends CANCELED once the run's
 * end is followed (startRunTask.ts follow). A run not live here (it ended, its end not yet followed) leaves the task
 * to be canceled here; the store keeps the first end. Null when the run's end did not reach the task in time.
 */
export async function cancelRun(
  deps: TaskCancelDeps & { store?: Store },
  task: TaskRecord,
  run: string,
  principal = '',
): Promise<TaskRecord | null> {
  // Followed before the cancel: the run's end may reach the task before the cancel resolves.
  const ended = deps.records.watchers.untilTerminal(task.id, deps.waitMs);
  const live = (await deps.starts?.cancelRun(run, 'task canceled over A2A')) ?? false;
  // Replicas: a run not live here may run on another replica, which takes the request (FleetOperations).
  const fleet = deps.store?.fleet;
  if (!live && fleet !== undefined && deps.store !== undefined) {
    const elsewhere = await cancelThroughFleet(deps.store, fleet, task, principal, deps.waitMs, deps.now);
    return elsewhere === null ? cancelHere(deps, task) : canceledOrThrow(elsewhere, true);
  }
  if (!live) return cancelHere(deps, task);
  const stored = await ended;
  return stored === null ? null : canceledOrThrow(stored, true);
}

/**
 * A turn's task: the turn is cancelled here, or through the replica holding its conversation, and the task ends with
 * the turn's fold. Past `waitMs` (a fold the store refuses) the task is answered as it stands.
 */
export async function cancelTurn(
  deps: TurnCancelDeps,
  task: TaskRecord & { inbox_event: string },
  principal: string,
): Promise<TaskRecord | null> {
  const folded = deps.records.watchers.untilTerminal(task.id, deps.waitMs);
  // Followed first, then read again: a fold that landed since the first read is seen either way.
  const now = await deps.store.tasks.get(task.id);
  if (now !== null && isTerminal(now.state)) return canceledOrThrow(now, true);
  const elsewhere = cancelElsewhere(deps.store, task, principal, deps.waitMs, deps.now);
  if (elsewhere === null) deps.supervisor.cancelEvent(task.inbox_event, 'task canceled over A2A');
  const ended = await (elsewhere ? Promise.race([folded, elsewhere]) : folded);
  return ended === null ? null : canceledOrThrow(ended, true);
}

/**
 * Ends `task` as CancelTask asks, by what answers it (tasks.ts taskOrigin); null when its end did not reach it in
 * time. `closeQuestion` ends a question the task waits on.
 */
export async function cancelByOrigin(
  deps: TurnCancelDeps,
  task: TaskRecord,
  principal: string,
  closeQuestion: () => void,
): Promise<TaskRecord | null> {
  const origin = taskOrigin(task);
  if (origin === 'run' && task.run !== undefined) return cancelRun(deps, task, task.run, principal);
  if (origin === 'step') {
    // A `human` step's question: the task ends here, then its step hears the cancel and fails (its own on_error).
    const stored = await cancelHere(deps, task);
    closeQuestion();
    return stored;
  }
  closeQuestion();
  if (task.inbox_event) return cancelTurn(deps, { ...task, inbox_event: task.inbox_event }, principal);
  // An `a2a` start queued behind concurrency: withdrawn, so its run never begins (one whose turn came just now is
  // cancelled as it begins: startRunTask.ts queuedStarted).
  await deps.starts?.withdraw(task.id, 'task canceled over A2A');
  // No turn runs for it (a noted message's task, a withdrawn start): the task is canceled here.
  return cancelHere(deps, task);
}
