// The SDK's A2ARequestHandler over our A2aBackend: each method maps wire types to the backend's and back. The
// backend owns durability and ownership; this only maps, waits (blocking sends) and follows (streams).

import { createHmac, randomBytes } from 'node:crypto';
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { TaskRecord } from '../domain/task.js';
import { describeError } from '../errors.js';
import type { A2aBackend, Principal, TaskUpdate } from './backend.js';
import { decodePageToken, encodePageToken, type PageBinding } from './pageToken.js';
import { asRpcError, RPC_CODES, RpcError, TASK_NOT_FOUND, toSdkError } from './rpcError.js';
import {
  isSettledState,
  isTerminalState,
  stateOfWire,
  taskEvent,
  toSendRequest,
  toWireTask,
  updateEvents,
} from './taskWire.js';

/** What the listener knows about one call, carried in the SDK's ServerCallContext state under CALL_KEY. */
export interface CallState {
  principal: Principal;
  /** Aborted when the caller goes away or the listener closes: ends streams and blocking waits. */
  signal: AbortSignal;
  /** Set when an unexpected error was answered as "internal error" (for the request's event line). */
  internal?: string;
  /** The agentd command op of a SendMessage, if any (for the request's event line). */
  op?: string;
}

export const CALL_KEY = 'agentd/call';
const PAGE_TOKEN_REFUSED =
  'params.pageToken: not a token ListTasks gave this caller for this query in this run of the daemon';
const DEFAULT_PAGE_SIZE = 50;
/** Signs page tokens; per process, so a token cannot be forged (and does not outlive a restart). */
const PAGE_KEY = randomBytes(32);
const signPage = (text: string): string => createHmac('sha256', PAGE_KEY).update(text).digest('base64url');

export class BackendRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly backend: A2aBackend,
    private readonly card: () => AgentCard,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card();
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return this.card();
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    const call = callOf(context);
    try {
      const req = toSendRequest(params);
      if (req.command) call.op = req.command.op;
      const task = await this.backend.send(call.principal, req);
      if (params.configuration?.returnImmediately || isSettledState(task.state)) return toWireTask(task);
      const settled = await this.backend.settled(call.principal, task.id, call.signal);
      return toWireTask(settled ?? (await this.backend.getTask(call.principal, task.id)) ?? task);
    } catch (err) {
      throw wireError(err, call);
    }
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const call = callOf(context);
    try {
      const req = toSendRequest(params);
      if (req.command) call.op = req.command.op;
      const task = await this.backend.send(call.principal, req);
      yield taskEvent(task);
      if (isSettledState(task.state)) return;
      yield* followTask(this.backend, call, task, isSettledState);
    } catch (err) {
      throw wireError(err, call);
    }
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const call = callOf(context);
    try {
      return toWireTask(await this.visibleTask(call, params.id));
    } catch (err) {
      throw wireError(err, call);
    }
  }

  /** One page, by task id descending (newest first); the status filter applies before the page is cut; the next page's token, if any. */
  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const call = callOf(context);
    try {
      const pageSize = params.pageSize || DEFAULT_PAGE_SIZE;
      const binding: PageBinding = {
        principal: call.principal.id,
        ...(params.contextId ? { contextId: params.contextId } : {}),
        ...(params.status ? { status: String(params.status) } : {}),
      };
      const after = params.pageToken ? decodePageToken(params.pageToken, binding, signPage) : undefined;
      if (after === null) throw new RpcError(RPC_CODES.invalid_params, PAGE_TOKEN_REFUSED);
      const state = stateOfWire(params.status);
      const query = {
        limit: pageSize + 1,
        ...(params.contextId ? { context_id: params.contextId } : {}),
        ...(state ? { state } : {}),
        ...(after ? { after } : {}),
      };
      const found = await this.backend.listTasks(call.principal, query);
      const page = found.tasks.slice(0, pageSize);
      const last = page.at(-1);
      const nextPageToken = found.tasks.length > pageSize && last ? encodePageToken(last, binding, signPage) : '';
      const tasks = page.map(toWireTask).map((task) => (params.includeArtifacts ? task : { ...task, artifacts: [] }));
      return { tasks, nextPageToken, pageSize, totalSize: found.total };
    } catch (err) {
      throw wireError(err, call);
    }
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const call = callOf(context);
    try {
      return toWireTask(await this.backend.cancelTask(call.principal, params.id));
    } catch (err) {
      throw wireError(err, call);
    }
  }

  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const call = callOf(context);
    try {
      const task = await this.visibleTask(call, params.id);
      if (isTerminalState(task.state)) {
        throw new RpcError(RPC_CODES.unsupported, `the task is ${task.state}: nothing more will happen to it`);
      }
      yield taskEvent(task);
      yield* followTask(this.backend, call, task, isTerminalState);
    } catch (err) {
      throw wireError(err, call);
    }
  }

  createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    return Promise.reject(pushUnsupported());
  }

  getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    return Promise.reject(pushUnsupported());
  }

  listTaskPushNotificationConfigs(): Promise<never> {
    return Promise.reject(pushUnsupported());
  }

  deleteTaskPushNotificationConfig(): Promise<void> {
    return Promise.reject(pushUnsupported());
  }

  private async visibleTask(call: CallState, id: string): Promise<TaskRecord> {
    const task = await this.backend.getTask(call.principal, id);
    if (!task) throw new RpcError(RPC_CODES.task_not_found, TASK_NOT_FOUND);
    return task;
  }
}

function pushUnsupported(): Error {
  return toSdkError(new RpcError(RPC_CODES.push_not_supported, 'push notifications are not supported'));
}

function callOf(context: ServerCallContext): CallState {
  const call = context.state.get(CALL_KEY) as CallState | undefined;
  if (!call) throw toSdkError(new RpcError(RPC_CODES.internal, 'internal error'));
  return call;
}

function wireError(err: unknown, call: CallState): Error {
  return toSdkError(
    asRpcError(err, (unknown) => {
      call.internal = describeError(unknown);
    }),
  );
}

/** The promise's value, or null once `signal` aborts first. */
/**
 * The updates of a task after `first` (which the caller has already sent), until `done(state)` or the caller goes
 * away. A change that lands between the caller's snapshot and the subscription is caught up from a fresh read.
 */
async function* followTask(
  backend: A2aBackend,
  call: CallState,
  first: TaskRecord,
  done: (state: TaskRecord['state']) => boolean,
): AsyncGenerator<StreamResponse> {
  const queue: TaskUpdate[] = [];
  let wake: (() => void) | null = null;
  const off = await backend.watch(call.principal, first.id, (update) => {
    queue.push(update);
    wake?.();
  });
  if (!off) throw new RpcError(RPC_CODES.task_not_found, TASK_NOT_FOUND);
  const onAbort = (): void => wake?.();
  call.signal.addEventListener('abort', onAbort);
  try {
    const fresh = await backend.getTask(call.principal, first.id);
    if (fresh && changed(first, fresh)) queue.unshift({ kind: 'task', task: fresh });
    let last = first;
    while (!call.signal.aborted) {
      const next = queue.shift();
      if (!next) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = null;
        continue;
      }
      if (next.kind === 'task' && !changed(last, next.task)) continue;
      yield* updateEvents(next);
      last = next.task;
      if (next.kind === 'task' && done(next.task.state)) return;
    }
  } finally {
    off();
    call.signal.removeEventListener('abort', onAbort);
  }
}

function changed(before: TaskRecord, after: TaskRecord): boolean {
  return before.state !== after.state || before.updated !== after.updated;
}
