// What the A2A listener needs from the runtime, and nothing more: the listener speaks JSON-RPC and maps types;
// the backend (implemented by the supervisor side) owns tasks, conversations and turns.
import type { TaskFilter, TaskRecord } from '../domain/task.js';

/** Who is calling, after authentication (reference §17.3). */
export interface Principal {
  /** `operator`, `user:<name>`, `agent:<name>`. */
  id: string;
  role: 'operator' | 'user' | 'agent';
  /** Tool patterns this principal's turns may call beyond the role's defaults. */
  grants: readonly string[];
}

/** A SendMessage as the backend sees it. */
export interface SendRequest {
  /** The text parts joined; for a command, may be empty. */
  text: string;
  /** The caller's context id; absent ⇒ a fresh conversation. */
  contextId?: string;
  /** Continues (or answers a question on) an existing task the caller owns. */
  taskId?: string;
  /** A command data part `{"agentd": {"op": …, …args}}`. */
  command?: { op: string; args: Record<string, unknown> };
  /** `agentd/mode` metadata etc.; passed through. */
  metadata?: Record<string, unknown>;
  /** The A2A messageId: a retry with the same id (from the same caller) gets the first send's task back. */
  messageId?: string;
}

/** A ListTasks query: the caller's own tasks (all of them for the operator), filtered before `limit`. */
export type TaskQuery = Omit<TaskFilter, 'principal'>;

/** A live update of a task the caller watches. */
export type TaskUpdate =
  | { kind: 'task'; task: TaskRecord }
  | { kind: 'activity'; task: TaskRecord; activity: Record<string, unknown> }
  /** A distinct engine event (body text, a tool card, a proposal, a checklist, compaction, memory). */
  | { kind: 'engine'; task: TaskRecord; type: string; fields: Record<string, unknown> };

/** A failure the listener turns into a JSON-RPC error (code per reference §17.1). */
export class BackendError extends Error {
  override name = 'BackendError';
  constructor(
    readonly kind: 'invalid_params' | 'not_found' | 'not_cancelable' | 'unsupported' | 'draining' | 'forbidden',
    message: string,
  ) {
    super(message);
  }
}

export interface A2aBackend {
  /** Accepts the message durably (the inbox row is committed) before resolving with its task. */
  send(principal: Principal, req: SendRequest): Promise<TaskRecord>;
  /**
   * Resolves once the task reaches a terminal state or input_required (blocking SendMessage); with null when
   * `signal` aborts first (the caller went away), and then nothing of the wait stays behind.
   */
  settled(principal: Principal, taskId: string, signal: AbortSignal): Promise<TaskRecord | null>;
  /** Null when the task does not exist OR belongs to someone else: the two are indistinguishable. */
  getTask(principal: Principal, taskId: string): Promise<TaskRecord | null>;
  /** One page of the caller's tasks (newest first) and how many the query selects in all. */
  listTasks(principal: Principal, query: TaskQuery): Promise<{ tasks: TaskRecord[]; total: number }>;
  /** Rejects with BackendError not_found / not_cancelable. */
  cancelTask(principal: Principal, taskId: string): Promise<TaskRecord>;
  /** Null when not found / not owned; else calls `onUpdate` for every change until the returned unsubscribe. */
  watch(principal: Principal, taskId: string, onUpdate: (u: TaskUpdate) => void): Promise<(() => void) | null>;
}
