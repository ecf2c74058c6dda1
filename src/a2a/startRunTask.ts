// An A2A message an `a2a` start takes (producers reference §3.7 step 2, §3.9): it starts a workflow run that acts
// for the caller in the caller's conversation, and the caller gets a task of its own that follows the run to its
// end (agentd leaves that task open and the run without principal, conversation or task).
import { createHash } from 'node:crypto';
import type { TaskRecord, TaskState } from '../domain/task.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import { type A2aStartSpec, type A2aStarts, type A2aStartTarget, a2aStartKey } from '../triggers/a2aStarts.js';
import type { FireResult } from '../triggers/fireTarget.js';
import type { Principal, SendRequest } from './backend.js';
import type { TaskRecords } from './taskRecords.js';
import { conversationFor, isTerminal, newTask, owns, transition } from './tasks.js';

export interface StartRunDeps {
  store: Store;
  /** The caller's quotas, as a new message's (a retry of a started message skips them). */
  admit(principal: string, conversation: string, text: string): Promise<{ release(): void }>;
  records: TaskRecords;
  log: Logger;
  now(): number;
}

/** A run's status as its task's state. */
const STATE_OF: Readonly<Record<string, TaskState>> = {
  completed: 'completed',
  cancelled: 'canceled',
  refused: 'rejected',
};

/** The task id of a message sent with `messageId`: a retry finds the task, and through its key the run. */
function runTaskId(principal: string, messageId: string): string {
  return `run-${createHash('sha256').update(`${principal}\n${messageId}`).digest('hex').slice(0, 32)}`;
}

/** The start step's output (reference §3.2: `{conversation, principal, role, command, parts, text, message_id}`). */
function payloadOf(principal: Principal, conversation: string, req: SendRequest) {
  const command = req.command ?? null;
  const parts: unknown[] = req.text === '' ? [] : [{ text: req.text }];
  if (command) parts.push({ data: { agentd: { op: command.op, ...command.args } } });
  return {
    conversation,
    principal: principal.id,
    role: principal.role,
    command: command?.op ?? null,
    args: command?.args ?? {},
    parts,
    text: req.text,
    message_id: req.messageId ?? null,
  };
}

/** Starts the run `start` names for this message and returns the caller's task (working, or failed if refused). */
export async function startRunTask(
  deps: StartRunDeps,
  start: A2aStartSpec & { target: A2aStartTarget },
  principal: Principal,
  req: SendRequest,
): Promise<TaskRecord> {
  const now = deps.now();
  const id = req.messageId === undefined ? newUlid(now) : runTaskId(principal.id, req.messageId);
  const earlier = await deps.store.tasks.get(id);
  if (earlier && owns(principal, earlier)) return deps.records.replayed(earlier);
  const contextId = req.contextId ?? `ctx-${newUlid(now).toLowerCase()}`;
  const conversation = conversationFor(principal, contextId);
  const admission = await deps.admit(principal.id, conversation, req.text);
  try {
    return await startRun(deps, { start, principal, req, id, contextId, conversation });
  } finally {
    admission.release();
  }
}

interface StartAsk {
  start: A2aStartSpec & { target: A2aStartTarget };
  principal: Principal;
  req: SendRequest;
  id: string;
  contextId: string;
  conversation: string;
}

async function startRun(deps: StartRunDeps, ask: StartAsk): Promise<TaskRecord> {
  const { start, principal, req, id, contextId, conversation } = ask;
  const now = deps.now();
  // The run first, keyed by the task: a crash before the task is saved finds the same run on the retry.
  const key = a2aStartKey(start.id, id);
  const got = await start.target.start(key, payloadOf(principal, conversation, req), principal.id, conversation);
  const task = newTask({ id, context_id: contextId, conversation, principal: principal.id, inbox_event: null, now });
  if (!got.ok && got.queued) {
    // Queued behind the workflow's concurrency: the task stays working; the run's end (A2aStarts.ended) ends it.
    deps.log.info('start.a2a.queued', { workflow: start.workflow, node: start.node, conversation, task: id });
    return deps.records.save(task);
  }
  if (!got.ok) {
    const refused = transition(task, 'rejected', now, { message: got.error }) ?? task;
    return deps.records.save(refused);
  }
  const command = req.command?.op ?? null;
  const fields = { workflow: start.workflow, node: start.node, run: got.run, conversation, command };
  deps.log.info('start.a2a.fired', { ...fields, role: principal.role, task: id });
  const saved = await deps.records.save({ ...task, run: got.run });
  start.target
    .outcome(got.run)
    .then((result) => follow(deps, id, result))
    .catch((err: unknown) =>
      deps.log.error('a2a.task.follow_fail', { task: id, run: got.run, err: describeError(err) }),
    );
  return saved;
}

/**
 * The run ended: its task ends with it (the output as the result, the error as the message). Told twice in the
 * life that started the run (its wait, and the engine's end hook that a restored run has alone); the second finds
 * the task terminal and changes nothing.
 */
export async function follow(deps: StartRunDeps, id: string, result: FireResult): Promise<void> {
  const task = await deps.store.tasks.get(id);
  if (!task) return;
  const output = result.output === undefined || result.output === null ? '' : result.output;
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  const state = STATE_OF[result.status] ?? 'failed';
  const patch = state === 'completed' ? { result: text, message: text } : { message: result.error ?? result.status };
  const ended = transition(task, state, deps.now(), patch);
  if (ended) await deps.records.save(ended);
}

/** Binds the task backend to `starts`: a run's end ends its task; a queued start's run, once begun, is the task's. */
export function followStarts(deps: () => StartRunDeps, starts: A2aStarts): void {
  starts.onEnded((taskId, result) => {
    follow(deps(), taskId, result).catch((err: unknown) =>
      deps().log.error('a2a.task.follow_fail', { task: taskId, err: describeError(err) }),
    );
  });
  starts.onStarted((taskId, run, start) => {
    queuedStarted(deps(), starts, { taskId, run, start }).catch((err: unknown) =>
      deps().log.error('a2a.task.follow_fail', { task: taskId, run, err: describeError(err) }),
    );
  });
}

/**
 * A queued start's run began: the task records it, so CancelTask cancels the run. A task canceled while its start
 * waited cancels the run at once.
 */
async function queuedStarted(
  deps: StartRunDeps,
  starts: A2aStarts,
  at: { taskId: string; run: string; start: A2aStartSpec | undefined },
): Promise<void> {
  const task = await deps.store.tasks.get(at.taskId);
  if (!task) return;
  if (isTerminal(task.state)) {
    await starts.cancelRun(at.run, 'task canceled over A2A');
    return;
  }
  const { workflow, node } = at.start ?? { workflow: null, node: null };
  const fields = { workflow, node, run: at.run, conversation: task.conversation, task: at.taskId, queued: true };
  deps.log.info('start.a2a.fired', fields);
  await deps.records.save({ ...task, run: at.run });
}
