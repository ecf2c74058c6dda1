// The tasks of workflow `human` steps (producers reference §2.8 `human`): keyed by the step (inbox_event holds the
// step key; no inbox event is behind it), saved through the backend's records so each change is logged, reaches the
// feed and the task's watchers. Decides no answer and asks nothing: the ask_human machinery does.
import type { TaskRecord, TaskState } from '../domain/task.js';
import type { Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import type { StepTaskOpen } from '../supervisor/supervisorOptions.js';
import type { TaskRecords } from './taskRecords.js';
import { newTask, transition } from './tasks.js';

export interface StepTaskDeps {
  store: Store;
  records: TaskRecords;
  now(): number;
}

/** The step's task: the one its key found (a restart asks on it again), else a new working task of the run. */
export async function openStepTask(deps: StepTaskDeps, step: StepTaskOpen): Promise<TaskRecord> {
  const found = await deps.store.tasks.forEvent(step.key);
  if (found) return deps.records.remember(found);
  const now = deps.now();
  const { key, run, principal, conversation } = step;
  const base = { id: newUlid(now), context_id: conversation, conversation, principal, inbox_event: key, now };
  return deps.records.save({ ...newTask(base), run });
}

/** The step's task ended: completed with the answer as its result, else with `message`; a terminal task stays. */
export async function endStepTask(deps: StepTaskDeps, id: string, state: TaskState, message: string): Promise<void> {
  const task = await deps.store.tasks.get(id);
  const patch = { message, question: null, ...(state === 'completed' ? { result: message } : {}) };
  const ended = task && transition(task, state, deps.now(), patch);
  if (ended) await deps.records.save(ended);
}
