// The A2A side of `a2a.send` / `a2a.delegate` steps (producers reference §2.8): the official SDK client to a peer
// named in `a2a.peers`, every request through a fetch that refuses private addresses unless the peer allows them
// (the card's own URL included) and carries the peer's bearer. The message id is the step's key, so a replayed step
// sends the same message and the peer (agentd deduplicates per caller and messageId) answers with the same task.
import { type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import type { A2aPeerConfig } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import type { PeerAnswer, PeerSend, StepPeerPorts } from './nodeKind.js';
import { privateAddressOf } from './privateAddress.js';

/** How often a delegated task is read again until it ends. */
const POLL_MS = 250;
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const TERMINAL_NAMES = new Set([...TERMINAL].map(stateName));

export interface PeerDeps {
  peers: () => Readonly<Record<string, A2aPeerConfig>>;
  lookup(host: string): Promise<string[]>;
  log: Logger;
  fetch?: typeof fetch;
}

/** `TASK_STATE_INPUT_REQUIRED` → `input_required`. */
export function stateName(state: TaskState | undefined): string {
  const name = state === undefined ? undefined : TaskState[state];
  return typeof name === 'string' ? name.replace(/^TASK_STATE_/, '').toLowerCase() : 'unspecified';
}

/** A fetch for one peer: private addresses refused unless allowed, the bearer added. */
function peerFetch(name: string, peer: A2aPeerConfig, deps: PeerDeps): typeof fetch {
  const base = deps.fetch ?? fetch;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!peer.allow_private) {
      const hit = await privateAddressOf(url, deps.lookup);
      if (hit !== null)
        throw new Error(`peer "${name}": ${url.host} resolves to a private address (${hit}); set allow_private`);
    }
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (peer.bearer !== null) headers.set('authorization', `Bearer ${peer.bearer}`);
    return base(input, { ...init, headers });
  };
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

/** The A2A client of each configured peer (its card read once per life, again after a failure). */
export class StepPeers implements StepPeerPorts {
  readonly #clients = new Map<string, Promise<Client>>();

  constructor(private readonly deps: PeerDeps) {}

  #client(name: string, peer: A2aPeerConfig): Promise<Client> {
    let client = this.#clients.get(name);
    if (!client) {
      const fetchImpl = peerFetch(name, peer, this.deps);
      const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      });
      client = new ClientFactory(options).createFromUrl(peer.url);
      client.catch(() => this.#clients.delete(name));
      this.#clients.set(name, client);
    }
    return client;
  }

  async send(req: PeerSend): Promise<PeerAnswer> {
    const peer = this.deps.peers()[req.peer];
    if (!peer) return { ok: false, error: `no such peer "${req.peer}" (a2a.peers)` };
    const signal = AbortSignal.any([req.signal, AbortSignal.timeout(Math.max(1, req.timeoutMs))]);
    const event = req.untilDone ? 'a2a.delegate' : 'a2a.send';
    const at = { run: req.run, step: req.step, peer: req.peer, message_id: req.messageId };
    try {
      const client = await this.#client(req.peer, peer);
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
      const answer = answerOf(result);
      if (answer.ok) this.deps.log.info(event, { ...at, task: answer.task, state: answer.state });
      if (req.untilDone && answer.ok && answer.task !== null && !TERMINAL_NAMES.has(answer.state))
        return { ok: false, error: `peer "${req.peer}": task ${answer.task} did not finish in time`, timeout: true };
      return answer;
    } catch (err) {
      const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'error';
      const timeout = signal.aborted && !req.signal.aborted;
      const error = timeout ? 'timed out' : reason;
      this.deps.log.warn(event, { ...at, error });
      return { ok: false, error: `peer "${req.peer}": ${error}`, timeout };
    }
  }
}
