// The key table's rows for web UI pairing codes (issue 18, interfaces §1.2's `interface.pairing.*`, kept under
// `a2a.pairing.*`: this daemon has no `interface` section, and pairing is part of its A2A listener).
import { boolKind, durationKind, enumKind } from './kinds.js';
import type { KeyTable } from './schema.js';

type PairingKey = 'a2a.pairing.enabled' | 'a2a.pairing.role' | 'a2a.pairing.ttl';

/** A web UI session's default life (agentd's `interface.pairing.ttl`). */
export const SESSION_TTL_MS = 12 * 3_600_000;

export const PAIRING_KEYS: Pick<KeyTable, PairingKey> = {
  'a2a.pairing.enabled': {
    kind: boolKind(),
    default: false,
    doc: 'One-time pairing codes sign a browser in to the web UI (`agentd pair`; needs a2a.listen).',
  },
  'a2a.pairing.role': {
    kind: enumKind(['operator', 'user']),
    default: 'operator',
    doc: 'Whom a pairing code signs in as: the operator, or `user:paired`.',
  },
  'a2a.pairing.ttl': {
    kind: durationKind(0, 60_000),
    default: SESSION_TTL_MS,
    doc: 'How long a web UI session lasts from its sign-in, by pairing code or token (at least 1m, at most 24d).',
  },
};
