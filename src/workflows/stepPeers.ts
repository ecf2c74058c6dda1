// The A2A side of `a2a.send` / `a2a.delegate` steps (producers reference §2.8): the official SDK client to a peer
// named in `a2a.peers`, every request through a fetch that refuses private addresses unless the peer allows them
// (the card's own URL included) and carries the peer's bearer. The message id is the step's key, so a replayed step
// sends the same message and the peer (agentd deduplicates per caller and messageId) answers with the same task.
// The SDK's side (peerWire.ts) loads at the first peer call.
import type { A2aPeerConfig } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import type { PeerAnswer, PeerSend, StepPeerPorts } from './nodeKind.js';
import type { Client } from './peerWire.js';
import { privateAddressOf } from './privateAddress.js';

export interface PeerDeps {
  peers: () => Readonly<Record<string, A2aPeerConfig>>;
  lookup(host: string): Promise<string[]>;
  log: Logger;
  fetch?: typeof fetch;
}

type PeerWire = typeof import('./peerWire.js');

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

/** The A2A client of each configured peer (its card read once per life, again after a failure). */
export class StepPeers implements StepPeerPorts {
  readonly #clients = new Map<string, Promise<Client>>();
  #wire: Promise<PeerWire> | null = null;

  constructor(private readonly deps: PeerDeps) {}

  #client(wire: PeerWire, name: string, peer: A2aPeerConfig): Promise<Client> {
    let client = this.#clients.get(name);
    if (!client) {
      client = wire.connectPeer(peer.url, peerFetch(name, peer, this.deps));
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
      this.#wire ??= import('./peerWire.js');
      const wire = await this.#wire;
      const answer = await wire.exchange(await this.#client(wire, req.peer, peer), req, signal);
      if (answer.ok) this.deps.log.info(event, { ...at, task: answer.task, state: answer.state });
      if (answer.ok && wire.unfinished(req, answer))
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
