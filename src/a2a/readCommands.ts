// Read-only commands for clients (issue 18 item 1): a conversation's history and the questions waiting for the
// caller. Like `status`, they answer with a task that is never stored (taskBackend: reads leave nothing behind).
import type { Msg } from '../protocol/messages.js';
import type { Store } from '../store/store.js';
import { BackendError, type Principal } from './backend.js';

export const READ_COMMANDS = ['conversation.get', 'conversation.list', 'questions'] as const;
const DEFAULT_MESSAGES = 100;
const DEFAULT_CONVERSATIONS = 100;
const MAX_CONVERSATIONS = 500;

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
  if (op === 'conversation.list') return listConversations(store, principal, args);
  if (op === 'questions') {
    const filter = { principal: principal.role === 'operator' ? null : principal.id, state: 'input_required' as const };
    const tasks = await store.tasks.list({ ...filter, limit: 100 });
    return {
      questions: tasks.map((t) => ({
        task: t.id,
        context_id: t.context_id,
        conversation: t.conversation,
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
  const all = historyOf(stored.conversation.messages);
  const messages = await withTasks(store, all.slice(-limit));
  // The header shows the conversation's goal from the start; the feed tells its later changes (taskFeed goal).
  const g = stored.conversation.controls?.goal ?? null;
  const goal = g === null ? null : { objective: g.objective, status: g.status };
  return { ...(contextId ? { context_id: contextId } : {}), messages, total: all.length, goal };
}

/** One message as `conversation.get` answers it; `event` (internal) is the inbox event of the turn it belongs to. */
interface HistoryMessage {
  role: 'user' | 'agent';
  text: string;
  ts: number;
  /** Its place among the conversation's shown messages: a stable id where no task names it. */
  seq: number;
  principal?: string;
  /** The A2A task the message belongs to (the feed's rows carry the same id), when one does. */
  task?: string;
  /** The turn (inbox event) the message belongs to: the feed's rows name it the same, and clients key by it. */
  turn?: string;
  event?: string;
}

/** The user messages and the agent's text, each with the inbox event of its turn (the last user message's). */
function historyOf(all: readonly Msg[]): HistoryMessage[] {
  const out: HistoryMessage[] = [];
  let event: string | undefined;
  for (const m of all) {
    if (m.role === 'user') {
      event = m.event;
      const extra = { ...(m.principal ? { principal: m.principal } : {}), ...(event ? { event } : {}) };
      out.push({ role: 'user', text: m.text, ts: m.ts, seq: out.length, ...extra });
    } else if (m.role === 'assistant' && m.text) {
      out.push({ role: 'agent', text: m.text, ts: m.ts, seq: out.length, ...(event ? { event } : {}) });
    }
  }
  return out;
}

/**
 * Names each message's task where one exists, else its turn: the user message its turn's task was opened for, and
 * the turn's last agent text (the reply the feed shows as that task's `message`, or the turn's reply). Earlier
 * agent text keeps only its `seq`.
 */
async function withTasks(store: Pick<Store, 'tasks'>, messages: HistoryMessage[]): Promise<HistoryMessage[]> {
  const tasks = new Map<string, string | null>();
  for (const m of messages) {
    if (m.event === undefined || tasks.has(m.event)) continue;
    tasks.set(m.event, (await store.tasks.forEvent(m.event))?.id ?? null);
  }
  return messages.map((m, i) => {
    const { event, ...shown } = m;
    const task = event === undefined ? null : (tasks.get(event) ?? null);
    const lastOfTurn = m.role === 'user' || messages[i + 1]?.event !== event || messages[i + 1]?.role === 'user';
    if (!lastOfTurn || event === undefined) return shown;
    // The turn always: a pruned task no longer names the message, its turn still does (the feed's key too).
    return task !== null ? { ...shown, task, turn: event } : { ...shown, turn: event };
  });
}

/**
 * The caller's own most recent conversation (`conversation.get {latest: true}`, interfaces §1.8: a client opens
 * it at attach): the one its newest turn-starting task went to, however many command tasks came after. Null when
 * it has none.
 */
async function latestConversation(
  store: Pick<Store, 'tasks'>,
  principal: Principal,
): Promise<{ conversation: string; contextId: string } | null> {
  const task = await store.tasks.latestTurn(principal.id);
  return task ? { conversation: task.conversation, contextId: task.context_id } : null;
}

/** One row of `conversation.list`: the stored id (what the operator addresses), its owner and owner-relative id. */
interface ListedConversation {
  conversation: string;
  context_id: string;
  principal: string | null;
}

/**
 * The stored conversations the caller may read (its own; every one for the operator), ordered by stored id and
 * paged by `after` (the last row's `conversation`); `you` names the caller, so a client can tell its own rows.
 */
async function listConversations(
  store: Pick<Store, 'conversations'>,
  principal: Principal,
  args: Record<string, unknown>,
): Promise<unknown> {
  const operator = principal.role === 'operator';
  const limit = Number.isInteger(args['limit'])
    ? Math.min(Math.max(1, args['limit'] as number), MAX_CONVERSATIONS)
    : DEFAULT_CONVERSATIONS;
  const after = typeof args['after'] === 'string' ? args['after'] : '';
  const own = `${principal.id}/`;
  const mine = (await store.conversations.heads()).filter(
    (h) => h.id > after && (operator || (h.principal === principal.id && h.id.startsWith(own))),
  );
  const page = mine.slice(0, limit);
  const conversations: ListedConversation[] = page.map((h) => ({
    conversation: h.id,
    context_id: h.principal !== null && h.id.startsWith(`${h.principal}/`) ? h.id.slice(h.principal.length + 1) : h.id,
    principal: h.principal,
  }));
  const next = mine.length > limit ? (page.at(-1)?.id ?? null) : null;
  return { you: { principal: principal.id, role: principal.role }, conversations, next };
}
