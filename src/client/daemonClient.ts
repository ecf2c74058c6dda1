// A typed client of a running daemon's A2A listener (issue 18 item 2): JSON-RPC calls (send, tasks, cancel,
// answer, commands) and the live feed with resume. The CLI, the TUI and the web UI's tests use it; it imports
// nothing of the daemon, only speaks its wire (A2A 1.0 JSON-RPC, `GET /feed`).
import { randomUUID } from 'node:crypto';
import { type FeedHandlers, type FeedOptions, followFeed } from './feedReader.js';

export type { FeedHandlers, FeedMessage, FeedOptions } from './feedReader.js';

/** A task as the wire carries it (the fields clients read). */
export interface WireTask {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts?: Array<{ text?: string }> }; timestamp?: string };
  artifacts?: Array<{ parts?: Array<{ text?: string }> }>;
  metadata?: Record<string, unknown>;
}

export interface TaskPage {
  tasks: WireTask[];
  nextPageToken?: string;
  totalSize?: number;
}

/** An error the daemon answered (JSON-RPC code and message), or why it could not be asked (code `unreachable`). */
export class DaemonClientError extends Error {
  override name = 'DaemonClientError';
  constructor(
    readonly code: number | 'unreachable' | 'http',
    message: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  /** The A2A listener, e.g. `http://127.0.0.1:8420`. */
  url: string;
  /** A bearer token; null for the loopback operator. */
  token?: string | null;
  /** Per-call bound for calls that do not wait on a turn (default 30 s). */
  timeoutMs?: number;
}

export interface SendOptions {
  contextId?: string;
  taskId?: string;
  /** Wait for the task to settle (completed, failed, input required…); default true. */
  wait?: boolean;
  /** Run the turn in plan mode (`agentd/mode: plan`). */
  plan?: boolean;
  messageId?: string;
}

/** A page of `conversation.list`: each conversation's stored id, owner and owner-relative context id. */
export interface ConversationPage {
  you: { principal: string; role: string };
  conversations: Array<{ conversation: string; context_id: string; principal: string | null }>;
  /** The `after` of the next page; null on the last. */
  next: string | null;
}

/** A conversation's user and agent messages (`conversation.get`), and which conversation it is. */
export interface History {
  /** The context id; null when `latest` found none. */
  contextId: string | null;
  /**
   * `task`: the A2A task the message belongs to (feed rows carry it too), or `turn`: its turn's inbox event where
   * no task follows it; `seq`: its place in the conversation.
   */
  messages: Array<{ role: 'user' | 'agent'; text: string; seq: number; task?: string; turn?: string }>;
  total: number;
  /** The conversation's goal (objective and status), or null. */
  goal: { objective: string; status: string } | null;
}

/** A question waiting for an answer (`questions`): its task, conversation ids, owner and the question. */
export interface PendingQuestion {
  task: string;
  context_id: string;
  conversation?: string;
  principal: string;
  question: { id: string; text: string; schema?: unknown } | null;
}

const SHORT_MS = 30_000;
const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

/** `TASK_STATE_INPUT_REQUIRED` → `input_required`. */
export function stateName(task: WireTask): string {
  return task.status.state.replace(/^TASK_STATE_/, '').toLowerCase();
}

export function isTerminal(task: WireTask): boolean {
  return TERMINAL.has(task.status.state);
}

/** Why the task's last answer was refused (its question asks again: `agentd/question.rejected`), else null. */
export function rejectedAnswer(task: WireTask): string | null {
  const question = task.metadata?.['agentd/question'] as { rejected?: unknown } | undefined;
  const why = question?.rejected;
  return stateName(task) === 'input_required' && typeof why === 'string' ? why : null;
}

/** The reply (the first artifact's text), else the status message's text. */
export function taskText(task: WireTask): string {
  const parts = task.artifacts?.[0]?.parts ?? task.status.message?.parts ?? [];
  return parts.map((p) => p.text ?? '').join('');
}

export class DaemonClient {
  private id = 0;
  constructor(private readonly opts: ClientOptions) {}

  get url(): string {
    return this.opts.url;
  }

  /** One JSON-RPC call; rejects with DaemonClientError. `waitMs` null = no bound (a blocking send). */
  async rpc<T>(method: string, params: unknown, waitMs: number | null = this.opts.timeoutMs ?? SHORT_MS): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params });
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0', ...this.authHeaders() };
    const signal = waitMs === null ? undefined : AbortSignal.timeout(waitMs);
    const res = await fetch(this.opts.url, { method: 'POST', headers, body, ...(signal ? { signal } : {}) }).catch(
      (err: Error & { cause?: { code?: string; message?: string } }) => {
        const why = err.name === 'TimeoutError' ? `no answer within ${waitMs} ms` : (err.cause?.code ?? err.message);
        throw new DaemonClientError('unreachable', `cannot reach ${this.opts.url}: ${why}`);
      },
    );
    const text = await res.text();
    let reply: { error?: { code: number; message: string }; result?: T };
    try {
      reply = JSON.parse(text) as typeof reply;
    } catch {
      throw new DaemonClientError('http', `${this.opts.url} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
    }
    if (reply.error) throw new DaemonClientError(reply.error.code, reply.error.message);
    if (res.status !== 200) throw new DaemonClientError('http', `${this.opts.url} answered HTTP ${res.status}`);
    return reply.result as T;
  }

  /** Sends a message; resolves with its task (settled unless `wait: false`). */
  async send(text: string, o: SendOptions = {}): Promise<WireTask> {
    const message = {
      messageId: o.messageId ?? randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(o.contextId ? { contextId: o.contextId } : {}),
      ...(o.taskId ? { taskId: o.taskId } : {}),
      ...(o.plan ? { metadata: { 'agentd/mode': 'plan' } } : {}),
    };
    const wait = o.wait !== false;
    const params = { message, configuration: { returnImmediately: !wait } };
    const result = await this.rpc<{ task: WireTask }>('SendMessage', params, wait ? null : undefined);
    return result.task;
  }

  /** Answers the question a task asks (a reply sent with its task id). */
  answer(taskId: string, text: string, wait = false): Promise<WireTask> {
    return this.send(text, { taskId, wait });
  }

  /** Runs an agentd command (`{"agentd": {op, …args}}`) and resolves with its JSON result. */
  async command(op: string, args: Record<string, unknown> = {}, contextId?: string): Promise<unknown> {
    const message = {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ data: { agentd: { op, ...args } } }],
      ...(contextId ? { contextId } : {}),
    };
    const { task } = await this.rpc<{ task: WireTask }>('SendMessage', { message });
    const text = taskText(task);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }

  /** The newest `limit` messages of conversation `which`; `latest` = the caller's most recent conversation. */
  async history(which: string, limit = 100): Promise<History> {
    const latest = which === 'latest';
    const args = { limit, ...(latest ? { latest: true } : {}) };
    const got = (await this.command('conversation.get', args, latest ? undefined : which)) as Partial<{
      context_id: string;
      messages: History['messages'];
      total: number;
      goal: History['goal'];
    }>;
    return {
      contextId: latest ? (got.context_id ?? null) : which,
      messages: got.messages ?? [],
      total: got.total ?? 0,
      goal: got.goal ?? null,
    };
  }

  /** One page of the conversations the caller may read (`conversation.list`), and who the caller is. */
  async conversations(o: { after?: string; limit?: number } = {}): Promise<ConversationPage> {
    const got = (await this.command('conversation.list', { ...o })) as Partial<ConversationPage>;
    return {
      you: got.you ?? { principal: '', role: '' },
      conversations: got.conversations ?? [],
      next: got.next ?? null,
    };
  }

  /** The questions waiting for the caller's answer (`questions`; the operator's: every one), as the feed shows them. */
  async questions(): Promise<PendingQuestion[]> {
    const got = (await this.command('questions')) as { questions?: PendingQuestion[] };
    return got.questions ?? [];
  }

  /** The daemon's public agent card (its name and version). */
  async card(): Promise<{ name: string; version: string }> {
    const target = new URL('/.well-known/agent-card.json', this.opts.url);
    const signal = AbortSignal.timeout(this.opts.timeoutMs ?? SHORT_MS);
    const res = await fetch(target, { signal }).catch((err: Error) => {
      throw new DaemonClientError('unreachable', `cannot reach ${this.opts.url}: ${err.message}`);
    });
    if (res.status !== 200) throw new DaemonClientError('http', `${target} answered HTTP ${res.status}`);
    return (await res.json()) as { name: string; version: string };
  }

  getTask(id: string): Promise<WireTask> {
    return this.rpc<WireTask>('GetTask', { id });
  }

  listTasks(q: { pageSize?: number; pageToken?: string; contextId?: string } = {}): Promise<TaskPage> {
    return this.rpc<TaskPage>('ListTasks', q);
  }

  cancel(id: string): Promise<WireTask> {
    return this.rpc<WireTask>('CancelTask', { id });
  }

  /** Follows the live feed (reconnecting with its cursor) until `opts.signal` aborts; resolves with the last seq. */
  feed(handlers: FeedHandlers, opts: FeedOptions): Promise<number> {
    return followFeed(this.opts.url, () => this.authHeaders(), handlers, opts);
  }

  private authHeaders(): Record<string, string> {
    return this.opts.token ? { authorization: `Bearer ${this.opts.token}` } : {};
  }
}
