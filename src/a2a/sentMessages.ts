// Messages a caller sent before: a SendMessage retried with the same messageId (same caller) is the same message,
// so its task is found before any quota is asked (a retry after a lost reply gets the original task, never a
// refusal meant for a new message); the keys and ids that make a message's accept or note idempotent.
import { createHash } from 'node:crypto';
import type { TaskRecord } from '../domain/task.js';
import type { Store } from '../store/store.js';
import type { Principal } from './backend.js';
import { rebuiltTask } from './tasks.js';

/** A message that is only noted in its conversation (wake_on leaves out a2a_message), and the reply it gets. */
export interface NotedMessage {
  principal: Principal;
  contextId: string;
  conversation: string;
  note: string;
  reply: string;
  messageId: string | undefined;
}

/** The inbox dedupe key an A2A message is accepted under (idempotent per principal). */
export function a2aDedupeKey(messageId: string): string {
  return `a2a:${messageId}`;
}

/** The id of the task a noted message gets: the same for a retry of it (same caller, same messageId). */
export function noteTaskId(principal: string, messageId: string): string {
  return `note-${createHash('sha256').update(`${principal}\n${messageId}`).digest('hex').slice(0, 32)}`;
}

/** What a noted message's key starts with in the store's remembered keys (outlives its task's retention). */
export const NOTE_KEY_PREFIX = 'a2a.note:';

/** The remembered key of a noted message (by its task id): a retry after its task was pruned notes nothing again. */
export function noteKey(taskId: string): string {
  return `${NOTE_KEY_PREFIX}${taskId}`;
}

/**
 * The task of a message `principal` already sent with `messageId` (accepted as a turn, or noted), or null: none
 * was, the message carries no id, or its task was lost while its turn is pending (the accept's own dedupe then
 * rebuilds it). A task pruned by retention after its turn ended is rebuilt from the inbox row's outcome, not
 * stored again: the retry gets the message's task as it ended, never a refusal or a turn meant for a new message
 * (interfaces §4.4: deduplicated by principal and messageId).
 */
export async function earlierTask(
  store: Pick<Store, 'inbox' | 'tasks'>,
  principal: string,
  messageId: string | undefined,
): Promise<TaskRecord | null> {
  if (messageId === undefined) return null;
  const noted = await store.tasks.get(noteTaskId(principal, messageId));
  if (noted) return noted;
  const record = await store.inbox.findByKey(principal, a2aDedupeKey(messageId));
  const taskId = record?.payload.task?.id;
  if (record === null || taskId === undefined) return null;
  const stored = await store.tasks.get(taskId);
  return stored ?? (record.status === 'done' ? rebuiltTask(record) : null);
}
