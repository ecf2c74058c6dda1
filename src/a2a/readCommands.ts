// Read-only commands for clients (issue 18 item 1): a conversation's history and the questions waiting for the
// caller. Like `status`, they answer with a task that is never stored (taskBackend: reads leave nothing behind).
import type { Store } from '../store/store.js';
import { BackendError, type Principal } from './backend.js';

export const READ_COMMANDS = ['conversation.get', 'questions'] as const;
const DEFAULT_MESSAGES = 100;

/**
 * Runs a read command; `named` is the caller's conversation the message's context id names. Without one,
 * `conversation.get {latest: true}` reads the caller's most recent conversation and says which (`context_id`).
 */
export async function readCommand(
  store: Pick<Store, 'conversations' | 'tasks'>,
  principal: Principal,
  op: string,
  named: string | null,
  args: Record<string, unknown>,
): Promise<unknown> {
  let conversation = named;
  if (op === 'questions') {
    const filter = { principal: principal.role === 'operator' ? null : principal.id, state: 'input_required' as const };
    const tasks = await store.tasks.list({ ...filter, limit: 100 });
    return {
      questions: tasks.map((t) => ({
        task: t.id,
        context_id: t.context_id,
        question: t.question,
        principal: t.principal,
      })),
    };
  }
  let contextId: string | null = null;
  if (conversation === null && args['latest'] === true) {
    const latest = await latestConversation(store, principal);
    if (latest === null) return { context_id: null, messages: [], total: 0 };
    ({ conversation, contextId } = latest);
  }
  if (conversation === null) throw new BackendError('invalid_params', `command "${op}" needs the message's contextId`);
  const limit =
    Number.isInteger(args['limit']) && (args['limit'] as number) > 0 ? (args['limit'] as number) : DEFAULT_MESSAGES;
  const stored = await store.conversations.get(conversation);
  if (stored === null) throw new BackendError('not_found', `conversation not found`);
  const messages = stored.conversation.messages.flatMap((m) => {
    if (m.role === 'user')
      return [{ role: 'user', text: m.text, ts: m.ts, ...(m.principal ? { principal: m.principal } : {}) }];
    if (m.role === 'assistant' && m.text) return [{ role: 'agent', text: m.text, ts: m.ts }];
    return [];
  });
  return { ...(contextId ? { context_id: contextId } : {}), messages: messages.slice(-limit), total: messages.length };
}

/** Tasks looked at for `latest`, newest first. */
const LATEST_SCAN = 50;

/**
 * The caller's own most recent conversation (`conversation.get {latest: true}`, interfaces §1.8: a client opens
 * it at attach): the one its newest message task went to. Null when it has none.
 */
async function latestConversation(
  store: Pick<Store, 'tasks'>,
  principal: Principal,
): Promise<{ conversation: string; contextId: string } | null> {
  const tasks = await store.tasks.list({ principal: principal.id, limit: LATEST_SCAN });
  // Only a task that started a turn: command tasks have no conversation, and a noted message's id does not sort by time.
  const task = tasks.find((t) => t.inbox_event !== null);
  return task ? { conversation: task.conversation, contextId: task.context_id } : null;
}
