// The official A2A SDK client's side of `a2a.send` / `a2a.delegate` steps: a client per peer URL, the message a
// step sends, the poll of a delegated task and the answer read back. Loaded at a workflow's first peer call
// (stepPeers.ts), so a daemon that never calls a peer holds neither the SDK's client nor jose (issue 14).
import { type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import type { PeerAnswer, PeerSend } from './nodeKind.js';

/** How often a delegated task is read again until it ends. */
const POLL_MS = 250;
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const TERMINAL_NAMES = new Set([...TERMINAL].map(stateName));

export type { Client };

/** `TASK_STATE_INPUT_REQUIRED` → `input_required`. */
export function stateName(state: TaskState | undefined): string {
  const name = state === undefined ? undefined : TaskState[state];
  return typeof name === 'string' ? name.replace(/^TASK_STATE_/, '').toLowerCase() : 'unspecified';
}

/** A client of the peer at `url` (its card read now), every request through `fetchImpl`. */
export function connectPeer(url: string, fetchImpl: typeof fetch): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return new ClientFactory(options).createFromUrl(url);
}

/** A delegated task the peer still works on when the step's time is up. */
export function unfinished(req: PeerSend, answer: Extract<PeerAnswer, { ok: true }>): boolean {
  return req.untilDone && answer.task !== null && !TERMINAL_NAMES.has(answer.state);
}

/** Sends the step's message (its id the step's key); a delegation polls the task until it ends or `signal` fires. */
export async function exchange(client: Client, req: PeerSend, signal: AbortSignal): Promise<PeerAnswer> {
  const message: Message = {
    messageId: req.messageId,
    contextId: req.contextId ?? '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: req.parts.map(partOf),
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  const configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true };
  let result = await client.sendMessage({ tenant: '', message, configuration, metadata: undefined }, { signal });
  while (
    req.untilDone &&
    'status' in result &&
    !TERMINAL.has(result.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)
  ) {
    await sleep(POLL_MS, signal);
    if (signal.aborted) break;
    result = await client.getTask({ tenant: '', id: result.id }, { signal });
  }
  return answerOf(result);
}

function partOf(given: Record<string, unknown>): Part {
  const content =
    typeof given['text'] === 'string'
      ? { $case: 'text' as const, value: given['text'] }
      : { $case: 'data' as const, value: given['data'] };
  return { content, metadata: undefined, filename: '', mediaType: '' };
}

/** The texts and the first data value of a task's artifacts (else its status message), or of a message. */
function contentOf(parts: readonly Part[]): { text: string; data: unknown } {
  const text = parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('');
  const data = parts.find((p) => p.content?.$case === 'data')?.content?.value;
  return { text, data: data ?? null };
}

function answerOf(result: Task | Message): PeerAnswer {
  if (!('status' in result)) {
    const { text, data } = contentOf(result.parts);
    return { ok: true, task: null, context: result.contextId || null, state: 'message', text, data };
  }
  const artifacts = result.artifacts.flatMap((a) => a.parts);
  const { text, data } = contentOf(artifacts.length > 0 ? artifacts : (result.status?.message?.parts ?? []));
  return {
    ok: true,
    task: result.id,
    context: result.contextId || null,
    state: stateName(result.status?.state),
    text,
    data,
  };
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const stop = (): void => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener('abort', stop, { once: true });
  });
