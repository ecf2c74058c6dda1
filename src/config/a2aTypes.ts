// The compiled A2A listener's configuration: who may call it and as whom, and its limits (reference §17).
import type { BudgetConfig } from './types.js';

/** Who may call the A2A listener and as whom (reference §17.3); matched in order. */
export interface A2aPrincipalConfig {
  /** The name in the principal id: `user:<id>`, `agent:<id>`; an operator's id is always `operator`. */
  id: string;
  role: 'operator' | 'user' | 'agent';
  /** `{bearer}`: the exact token (from `{{secret:NAME}}`, redacted from events); `{any: true}`: anyone. */
  match: { bearer: string } | { any: true };
  /** Tool patterns this principal's turns may call beyond the role's defaults. Default []. */
  grants: readonly string[];
  /** This principal's own budget and storage limits; absent = none. */
  quotas?: PrincipalQuotas;
}

/** A principal's limits (`a2a.principals[].quotas`); an absent key is no limit. */
export interface PrincipalQuotas {
  /** Its own budget (scope `principal:<id>`). */
  budget?: BudgetConfig;
  /** The largest one message may be (UTF-8 bytes of its text). */
  message_bytes?: number;
  /** How many conversations it may own. */
  conversations?: number;
  /** The stored bytes (messages) of all its conversations together. */
  stored_bytes?: number;
}

/** An agent the workflow steps `a2a.send` / `a2a.delegate` may reach (`a2a.peers.<name>`). */
export interface A2aPeerConfig {
  /** Where its agent card is served (the SDK client reads `/.well-known/agent-card.json` under it). */
  url: string;
  /** Sent as `Authorization: Bearer …` (from `{{secret:NAME}}`, redacted from events); null = none. */
  bearer: string | null;
  /** False (default): a peer whose host resolves to a loopback/private/link-local address is refused. */
  allow_private: boolean;
}

export interface A2aConfig {
  /** `http://127.0.0.1:8420` (port 0 = a free port) or `https://…`; null (default) = no listener. */
  listen: string | null;
  /** Certificate and key files (PEM) of an https listener; checked when the listener starts. Default null. */
  tls: { cert: string; key: string } | null;
  /** Default []: a loopback caller without an Origin header is the operator, anyone else is refused. */
  principals: readonly A2aPrincipalConfig[];
  /** A request body over this is refused with HTTP 413. Default 1 MiB. */
  max_body_bytes: number;
  /** Open connections at most; a new one past it evicts the oldest idle one, or is closed. Default 512. */
  max_connections: number;
  /** A connection without a complete request head this long is closed (ms). Default 10 s. */
  header_timeout: number;
  /** A request body not received in full this long after its head is refused with HTTP 408 (ms). Default 30 s. */
  body_timeout: number;
  /** Streams and blocking sends one principal may hold at once; capped at half of max_connections. Default 64. */
  max_long_requests: number;
  /** The public agent card: never the instruction (the card is unauthenticated). */
  card: { name: string | null; description: string };
  /** The client feed's retention (issue 18): events past the newest `retain_events` or older than `retain_age` go. */
  feed: { retain_events: number; retain_age: number };
  /** Terminal tasks' retention: past the newest `retain` terminal tasks, or older than `retain_age` (ms), they go. */
  tasks: { retain: number; retain_age: number };
  /** Web UI pairing codes (interfaces §2.2): off by default; a code signs in as `operator` or `user:paired`. */
  /** `ttl`: a web UI session's life from its sign-in (ms), paired or by token; default 12 h. */
  pairing: { enabled: boolean; role: 'operator' | 'user'; ttl: number };
  /** Browser origins (`http(s)://host[:port]`, exact) beside loopback ones that may call the listener; default []. */
  origins: readonly string[];
  /** Agents the workflow steps `a2a.send` / `a2a.delegate` reach, by name. Default {}. */
  peers: Readonly<Record<string, A2aPeerConfig>>;
}
