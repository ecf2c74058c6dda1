// A new A2A message a waiting workflow step takes (producers reference §3.7 step 1, `wait on: message`, `a2a.wait`):
// held on every run waiting for its conversation before any start or turn sees it. agentd leaves the sender's task
// open and replays the message after a restart; here the sender gets a completed task, found again on a retry.
import { createHash } from 'node:crypto';
import type { TaskRecord } from '../domain/task.js';
import type { Logger } from '../obs/log.js';
import type { Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import type { A2aStarts } from '../triggers/a2aStarts.js';
import type { Principal, SendRequest } from './backend.js';
import { earlierTask } from './sentMessages.js';
import type { TaskRecords } from './taskRecords.js';
import { conversationFor, notedTask, owns } from './tasks.js';

export interface MessageWaitDeps {
  store: Store;
  records: TaskRecords;
  log: Logger;
  now(): number;
}

/** The task of a message sent with `messageId` that a waiting step took: a retry finds it. */
function waitTaskId(principal: string, messageId: string): string {
  return `msg-${createHash('sha256').update(`${principal}\n${messageId}`).digest('hex').slice(0, 32)}`;
}

/** The completed task when waiting steps took the message, else null (it goes on to starts and turns). */
export async function messageWaitTask(
  deps: MessageWaitDeps,
  starts: A2aStarts,
  principal: Principal,
  req: SendRequest,
): Promise<TaskRecord | null> {
  const now = deps.now();
  const id = req.messageId === undefined ? newUlid(now) : waitTaskId(principal.id, req.messageId);
  const earlier = req.messageId === undefined ? null : await deps.store.tasks.get(id);
  if (earlier && owns(principal, earlier)) return deps.records.replayed(earlier);
  // A retry of a message that went to a turn (or was noted) gets that task: no waiting step takes it now.
  const turn = await earlierTask(deps.store, principal.id, req.messageId);
  if (turn) return deps.records.replayed(turn);
  const contextId = req.contextId ?? `ctx-${newUlid(now).toLowerCase()}`;
  const conversation = conversationFor(principal, contextId);
  const message = {
    parts: req.text === '' ? [] : [{ text: req.text }],
    text: req.text,
    message_id: req.messageId ?? null,
  };
  const held = await starts.takeMessage({
    principal: principal.id,
    role: principal.role,
    contextId,
    conversation,
    key: req.messageId ?? id,
    payload: { conversation: contextId, message, principal: principal.id },
  });
  if (held === 0) return null;
  deps.log.info('message.wait.taken', { principal: principal.id, conversation, steps: held, task: id });
  const reply = `delivered to ${held} waiting workflow step${held === 1 ? '' : 's'}`;
  return deps.records.save(notedTask({ id, context_id: contextId, conversation, principal: principal.id, now }, reply));
}
