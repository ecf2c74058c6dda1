// Maps between agentd's task records and the A2A 1.0 wire types of `@a2a-js/sdk` (reference §17.2): states,
// the status message, the reply artifact, `agentd/*` metadata, and a SendMessage's parts. No I/O.
import {
  type Artifact,
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  taskStateToJSON,
  TaskState as WireState,
} from '@a2a-js/sdk';
import type { TaskRecord, TaskState } from '../domain/task.js';
import type { SendRequest, TaskUpdate } from './backend.js';
import { RPC_CODES, RpcError } from './rpcError.js';

const WIRE_STATES: Readonly<Record<TaskState, WireState>> = {
  submitted: WireState.TASK_STATE_SUBMITTED,
  working: WireState.TASK_STATE_WORKING,
  input_required: WireState.TASK_STATE_INPUT_REQUIRED,
  completed: WireState.TASK_STATE_COMPLETED,
  failed: WireState.TASK_STATE_FAILED,
  canceled: WireState.TASK_STATE_CANCELED,
  rejected: WireState.TASK_STATE_REJECTED,
};

const STATES_BY_WIRE = new Map<WireState, TaskState>(
  Object.entries(WIRE_STATES).map(([state, wire]) => [wire, state as TaskState]),
);

/** Our state for a wire state (ListTasks' filter); undefined for UNSPECIFIED, AUTH_REQUIRED and the like. */
export function stateOfWire(wire: WireState): TaskState | undefined {
  return STATES_BY_WIRE.get(wire);
}

/** A terminal state, or input_required: where a blocking SendMessage returns and a send stream ends. */
export function isSettledState(state: TaskState): boolean {
  return state !== 'submitted' && state !== 'working';
}

export function isTerminalState(state: TaskState): boolean {
  return state === 'completed' || state === 'failed' || state === 'canceled' || state === 'rejected';
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The reply as the task's one artifact. */
function replyArtifact(task: TaskRecord): Artifact | null {
  if (task.result === null) return null;
  return {
    artifactId: `${task.id}-reply`,
    name: 'reply',
    description: '',
    parts: [textPart(task.result)],
    metadata: undefined,
    extensions: [],
  };
}

function statusOf(task: TaskRecord): Task['status'] {
  const message: Message | undefined =
    task.message === null
      ? undefined
      : {
          messageId: `${task.id}-status-${task.history.length}`,
          contextId: task.context_id,
          taskId: task.id,
          role: Role.ROLE_AGENT,
          parts: [textPart(task.message)],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        };
  return { state: WIRE_STATES[task.state], message, timestamp: iso(task.updated) };
}

/**
 * `agentd/principal`, `agentd/statusHistory` and, while a person is asked, `agentd/question` (`rejected`: why the
 * previous answer was refused, on a question asked again).
 */
function metadataOf(task: TaskRecord): Record<string, unknown> {
  const history = task.history.map((h) => ({ state: taskStateToJSON(WIRE_STATES[h.state]), timestamp: iso(h.ts) }));
  const metadata: Record<string, unknown> = { 'agentd/principal': task.principal, 'agentd/statusHistory': history };
  if (task.question && task.state === 'input_required') {
    metadata['agentd/question'] = {
      id: task.question.id,
      ...(task.question.schema ? { schema: task.question.schema } : {}),
      ...(task.question.rejected ? { rejected: task.question.rejected } : {}),
    };
  }
  return metadata;
}

/**
 * A task record as an A2A Task. The record keeps no message transcript (the conversation does), so `history` is
 * empty; the state history travels as `metadata["agentd/statusHistory"]`.
 */
export function toWireTask(task: TaskRecord): Task {
  const artifact = replyArtifact(task);
  return {
    id: task.id,
    contextId: task.context_id,
    status: statusOf(task),
    artifacts: artifact ? [artifact] : [],
    history: [],
    metadata: metadataOf(task),
  };
}

/** The stream events of one update: the reply artifact when it completes, then the status. */
export function updateEvents(update: TaskUpdate): StreamResponse[] {
  const { task } = update;
  const events: StreamResponse[] = [];
  const artifact = update.kind === 'task' && task.state === 'completed' ? replyArtifact(task) : null;
  if (artifact) {
    const value = { taskId: task.id, contextId: task.context_id, artifact, append: false, lastChunk: true };
    events.push({ payload: { $case: 'artifactUpdate', value: { ...value, metadata: undefined } } });
  }
  const metadata =
    update.kind === 'activity'
      ? { 'agentd/activity': update.activity }
      : update.kind === 'engine'
        ? { 'agentd/event': { type: update.type, ...update.fields } }
        : metadataOf(task);
  const status = { taskId: task.id, contextId: task.context_id, status: statusOf(task), metadata };
  events.push({ payload: { $case: 'statusUpdate', value: status } });
  return events;
}

export function taskEvent(task: TaskRecord): StreamResponse {
  return { payload: { $case: 'task', value: toWireTask(task) } };
}

/**
 * A SendMessage as the backend sees it: text parts joined by newlines, a data part `{"agentd": {op, …}}` as a
 * command, other data parts as their JSON text. File parts (`raw`, `url`) are refused with -32005.
 */
export function toSendRequest(request: SendMessageRequest): SendRequest {
  const message = request.message;
  if (!message) throw new RpcError(RPC_CODES.invalid_params, 'params.message: required');
  const texts: string[] = [];
  let command: SendRequest['command'];
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === 'text') texts.push(content.value);
    else if (content?.$case === 'data') {
      const found = commandOf(content.value);
      if (found && command === undefined) command = found;
      else texts.push(JSON.stringify(content.value));
    } else throw new RpcError(RPC_CODES.content_type, 'only text and data parts are supported');
  }
  const metadata = { ...request.metadata, ...message.metadata };
  return {
    text: texts.join('\n'),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(command ? { command } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    ...(message.messageId ? { messageId: message.messageId } : {}),
  };
}

/** `{"agentd": {"op": "status", …args}}` → the command; anything else → undefined. */
function commandOf(value: unknown): SendRequest['command'] {
  if (typeof value !== 'object' || value === null || !('agentd' in value)) return undefined;
  const body = (value as { agentd: unknown }).agentd;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RpcError(RPC_CODES.invalid_params, 'an agentd command is an object with an op');
  }
  const { op, ...args } = body as Record<string, unknown>;
  if (typeof op !== 'string' || op === '')
    throw new RpcError(RPC_CODES.invalid_params, 'an agentd command needs an op');
  return { op, args };
}
