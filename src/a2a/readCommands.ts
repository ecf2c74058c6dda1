// Read-only commands for clients (issue 18 item 1): a conversation's history and the questions waiting for the
// caller. Like `status`, they answer with a task that is never stored (taskBackend: reads leave nothing behind).
import type { Store } from '../store/store.js';
import { BackendError, type Principal } from './backend.js';

export const READ_COMMANDS = ['conversation.get', 'questions'] as const;
const DEFAULT_MESSAGES = 100;

/** Runs a read command; `conversation` is the caller's conversation the message's context id names. */
export async function readCommand(
  store: Pick<Store, 'conversations' | 'tasks'>,
  principal: Principal,
  op: string,
  conversation: string | null,
  args: Record<string, unknown>,
): Promise<unknown> {
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
  return { messages: messages.slice(-limit), total: messages.length };
}
