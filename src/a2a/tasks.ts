// A2A task policy (reference §17.2, §14.2): how a task starts, moves between states and ends. Pure: plain data
// in, a new copy out; no store, no clock. A terminal state (completed, failed, canceled, rejected) never changes.

import type { InboxEvent, InboxOutcome, InboxRecord } from '../domain/inbox.js';
import type { TaskRecord, TaskState } from '../domain/task.js';
import type { TurnStatus } from '../protocol/status.js';
import type { Principal } from './backend.js';

/** The states a task never leaves (the store refuses to overwrite them too: store/writeRules.ts keepsTask). */
export const TERMINAL_STATES: readonly TaskState[] = ['completed', 'failed', 'canceled', 'rejected'];

/** How many `{state, ts}` entries a task keeps; the oldest go first. */
export const TASK_HISTORY_LIMIT = 64;

/** True for completed, failed, canceled and rejected. */
export function isTerminal(state: TaskState): boolean {
  return TERMINAL_STATES.includes(state);
}

export interface NewTask {
  id: string;
  context_id: string;
  conversation: string;
  principal: string;
  inbox_event: string | null;
  now: number;
}

/**
 * A task for a message just accepted. It starts WORKING (issue 5: working while queued or running); its history
 * still records the `submitted` step first, so a client following stateTransitionHistory sees the A2A lifecycle.
 */
export function newTask(init: NewTask): TaskRecord {
  return {
    id: init.id,
    context_id: init.context_id,
    conversation: init.conversation,
    state: 'working',
    principal: init.principal,
    inbox_event: init.inbox_event,
    message: null,
    result: null,
    question: null,
    history: [
      { state: 'submitted', ts: init.now },
      { state: 'working', ts: init.now },
    ],
    created: init.now,
    updated: init.now,
  };
}

/** The task of a message only noted (no turn): completed at once with `reply`. */
export function notedTask(init: Omit<NewTask, 'inbox_event'>, reply: string): TaskRecord {
  const base = newTask({ ...init, inbox_event: null });
  return transition(base, 'completed', init.now, { result: reply, message: reply }) ?? base;
}

/** The task an accepted inbox event starts with (the A2A task its payload names), or null when it names none. */
export function startingTask(ev: InboxEvent): TaskRecord | null {
  const t = ev.payload.task;
  if (!t) return null;
  const principal = ev.principal ?? 'operator';
  const base = { id: t.id, context_id: t.context_id, conversation: ev.payload.context_id, principal };
  return newTask({ ...base, inbox_event: ev.id, now: ev.ts });
}

/** Fields a transition may set along with the state; an absent field keeps its value, null clears it. */
export interface TaskPatch {
  message?: string | null;
  result?: string | null;
  question?: TaskRecord['question'];
}

/**
 * The task moved to `state` at `now`, as a new copy; null when the task is already terminal (a later fold, a
 * late cancel or answer never overwrites it). A move to the current state appends no history entry. Leaving
 * input_required drops the open question unless the patch sets one.
 */
export function transition(task: TaskRecord, state: TaskState, now: number, patch: TaskPatch = {}): TaskRecord | null {
  if (isTerminal(task.state)) return null;
  const history = state === task.state ? task.history.slice() : [...task.history, { state, ts: now }];
  const question = patch.question !== undefined ? patch.question : state === 'input_required' ? task.question : null;
  return {
    ...task,
    state,
    message: patch.message !== undefined ? patch.message : task.message,
    result: patch.result !== undefined ? patch.result : task.result,
    question: question === null ? null : { ...question },
    history: history.slice(-TASK_HISTORY_LIMIT),
    updated: now,
  };
}

/** A cancelled turn's task message, set by its fold: the worker has ended the turn. */
export const TURN_STOPPED = 'canceled: the turn was stopped';

/** The task as its turn's outcome ends it (§14.2): the reply, else the error; null when it had ended already. */
export function endedTask(task: TaskRecord, outcome: InboxOutcome, now: number): TaskRecord | null {
  const message = outcome.reply || outcome.error || (outcome.status === 'cancelled' ? TURN_STOPPED : null);
  const patch = { message, result: outcome.status === 'completed' ? outcome.reply : null, question: null };
  return transition(task, stateForStatus(outcome.status), now, patch);
}

/**
 * The task an inbox row answers, rebuilt from the row alone (its task was lost, or pruned by retention): working
 * while the row is pending, ended by its stored outcome once done. Null when the row names no task.
 */
export function rebuiltTask(record: InboxEvent & Partial<Pick<InboxRecord, 'status' | 'outcome'>>): TaskRecord | null {
  const start = startingTask(record);
  if (start === null || record.status !== 'done' || record.outcome === undefined) return start;
  return endedTask(start, record.outcome, record.ts) ?? start;
}

/** The terminal state a turn's status gives its task (§14.2): refused → rejected, anything unlisted → failed. */
export function stateForStatus(status: TurnStatus): TaskState {
  switch (status) {
    case 'completed':
      return 'completed';
    case 'refused':
      return 'rejected';
    case 'cancelled':
      return 'canceled';
    default:
      return 'failed';
  }
}

/** How many consumed messageIds a task remembers (a retry comes soon after its first send). */
const MESSAGE_IDS_KEPT = 32;

/** The task with `messageId` remembered as consumed (a retry of it then changes nothing); as is without one. */
export function consumed(task: TaskRecord, messageId: string | undefined): TaskRecord {
  if (messageId === undefined) return task;
  return { ...task, message_ids: [...(task.message_ids ?? []), messageId].slice(-MESSAGE_IDS_KEPT) };
}

/** The operator names conversations directly; anyone else's context ids are their own namespace (RFC 0043). */
export function conversationFor(principal: Principal, contextId: string): string {
  return principal.role === 'operator' ? contextId : `${principal.id}/${contextId}`;
}

/**
 * What answers a task, for CancelTask: a turn (its inbox event), a workflow run an `a2a` start made, a run's
 * `human` step (keyed by the step, no inbox event behind it), or nothing (a noted message, a command).
 */
export function taskOrigin(task: TaskRecord): 'turn' | 'run' | 'step' | 'none' {
  if (task.run !== undefined) return task.inbox_event === null ? 'run' : 'step';
  return task.inbox_event === null ? 'none' : 'turn';
}

/** Whether `principal` may see `task`: its own, or any for the operator. */
export function owns(principal: Principal, task: TaskRecord): boolean {
  return principal.role === 'operator' || task.principal === principal.id;
}

/**
 * The question an answer leaves on its task: kept with the answer when nobody waits (a replayed ask takes it), and
 * on a run step's task always: the step ends its task only after it took the answer, so a crash between the two
 * hands the answer over again instead of asking twice. A turn's live answer closes its question.
 */
export function answeredQuestion(task: TaskRecord, text: string, waiting: boolean): TaskRecord['question'] {
  if (task.question === null) return null;
  return waiting && taskOrigin(task) !== 'step' ? null : { ...task.question, answer: text };
}
