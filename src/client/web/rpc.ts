// The page's calls to the daemon that served it (issue 18 item 4): same-origin JSON-RPC riding the session cookie,
// and the sign-in endpoints. No token is ever kept by the page: the cookie is HttpOnly.

/** A task as the wire carries it (the fields the page reads; daemonClient.ts has the Node client's). */
export interface WireTask {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts?: Array<{ text?: string }> } };
  artifacts?: Array<{ parts?: Array<{ text?: string }> }>;
}

export interface Who {
  principal: string;
  role: string;
}

let next = 0;

/** One JSON-RPC call on `/`; rejects with the daemon's message. */
export async function rpc<T>(method: string, params: unknown): Promise<T> {
  const res = await fetch('/', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++next, method, params }),
  });
  const reply = (await res.json().catch(() => ({ error: { message: `HTTP ${res.status}` } }))) as {
    result?: T;
    error?: { message: string; code?: number };
  };
  if (reply.error) throw new Error(reply.error.message);
  return reply.result as T;
}

/**
 * A random message id. Not `crypto.randomUUID`: it exists only in secure contexts, and a page served over plain http
 * from a non-loopback host (a LAN address, a proxy) is not one; `getRandomValues` is everywhere.
 */
const messageId = (): string =>
  `ui-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')}`;

/** Sends text to a conversation (or answers a task's question); returns the task at once. */
export async function sendText(text: string, to: { contextId?: string | null; taskId?: string }): Promise<WireTask> {
  const message = {
    messageId: messageId(),
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(to.contextId ? { contextId: to.contextId } : {}),
    ...(to.taskId ? { taskId: to.taskId } : {}),
  };
  const { task } = await rpc<{ task: WireTask }>('SendMessage', {
    message,
    configuration: { returnImmediately: true },
  });
  return task;
}

/** Runs an agentd command (`status`, `pause`, `resume`, …) and returns its JSON result. */
export async function command(op: string, args: Record<string, unknown> = {}, contextId?: string): Promise<unknown> {
  const message = {
    messageId: messageId(),
    role: 'ROLE_USER',
    parts: [{ data: { agentd: { op, ...args } } }],
    ...(contextId ? { contextId } : {}),
  };
  const { task } = await rpc<{ task: WireTask }>('SendMessage', { message });
  const text = (task.artifacts?.[0]?.parts ?? []).map((p) => p.text ?? '').join('');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export const cancelTask = (id: string): Promise<WireTask> => rpc<WireTask>('CancelTask', { id });

export async function listTasks(): Promise<WireTask[]> {
  const page = await rpc<{ tasks: WireTask[] }>('ListTasks', { pageSize: 50 });
  return page.tasks;
}

/** Who the session cookie signs in, or null. */
export async function whoAmI(): Promise<Who | null> {
  const res = await fetch('/ui/session', { credentials: 'same-origin' });
  return res.ok ? ((await res.json()) as Who) : null;
}

/** Trades a token, or a one-time pairing code, for a session cookie; rejects with the daemon's reason. */
export async function signIn(credential: { token: string } | { code: string }): Promise<Who> {
  const res = await fetch('/ui/session', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credential),
  });
  const body = (await res.json()) as Who & { error?: string };
  if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
  return body;
}

export async function signOut(): Promise<void> {
  await fetch('/ui/session', { method: 'DELETE', credentials: 'same-origin' });
}

/** A conversation's stored messages (`conversation.get`); `latest` = the caller's most recent conversation. */
export interface History {
  contextId: string | null;
  messages: Array<{ role: string; text: string; seq: number; task?: string; turn?: string }>;
  goal: { objective: string; status: string } | null;
}

export async function history(which: string, limit = 100): Promise<History> {
  const latest = which === 'latest';
  const args = { limit, ...(latest ? { latest: true } : {}) };
  const got = (await command('conversation.get', args, latest ? undefined : which)) as {
    context_id?: string;
    messages?: History['messages'];
    goal?: History['goal'];
  };
  const contextId = latest ? (got.context_id ?? null) : which;
  return { contextId, messages: got.messages ?? [], goal: got.goal ?? null };
}

/** A conversation as `conversation.list` names it: the stored id, its owner and the owner-relative context id. */
export interface Listed {
  conversation: string;
  context_id: string;
  principal: string | null;
}

/** How many pages of `conversation.list` the nav reads (100 conversations each). */
const LIST_PAGES = 5;

/** The conversations the caller may read (`conversation.list`, paged by the daemon), oldest id first. */
export async function listConversations(): Promise<Listed[]> {
  const out: Listed[] = [];
  let after: string | null = null;
  for (let page = 0; page < LIST_PAGES; page++) {
    const got = (await command('conversation.list', after === null ? {} : { after })) as {
      conversations?: Listed[];
      next?: string | null;
    };
    out.push(...(got.conversations ?? []));
    after = got.next ?? null;
    if (after === null) break;
  }
  return out;
}

/** A subagent as `subagent.list` names it (the caller's own; the operator's list holds everyone's). */
export interface SubagentRow {
  handle: string;
  mode: string;
  status: string;
  instruction: string;
  created: number;
}

/** A subagent as `subagent.status` tells it: its outcome so far. */
export interface SubagentDetail {
  handle: string;
  status: string;
  mode: string;
  result: unknown;
  error: string | null;
  tokens: unknown;
}

export async function listSubagents(): Promise<SubagentRow[]> {
  const got = (await command('subagent.list')) as { subagents?: SubagentRow[] };
  return got.subagents ?? [];
}

export const subagentStatus = async (handle: string): Promise<SubagentDetail> =>
  (await command('subagent.status', { handle })) as SubagentDetail;

export const killSubagent = (handle: string): Promise<unknown> =>
  command('subagent.kill', { handle, reason: 'stopped from the web UI' });

export const sendToSubagent = (handle: string, message: string): Promise<unknown> =>
  command('subagent.send', { handle, message });
