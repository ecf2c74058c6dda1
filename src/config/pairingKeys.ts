// The key table's rows for the web UI and browser callers (issue 18, interfaces §1.2's `interface.pairing.*` and
// `interface.origins`, kept under `a2a.*`: this daemon has no `interface` section, and both belong to its listener).
import { boolKind, type Coerced, commaList, durationKind, enumKind, showValue, type ValueKind } from './kinds.js';
import type { KeyTable } from './schema.js';

type WebKey = 'a2a.pairing.enabled' | 'a2a.pairing.role' | 'a2a.pairing.ttl' | 'a2a.origins';

/** A web UI session's default life (agentd's `interface.pairing.ttl`). */
export const SESSION_TTL_MS = 12 * 3_600_000;
const ORIGIN_SHAPE = 'expected an origin http(s)://HOST[:PORT] (no path, query or user)';

/** Null for an origin as a browser sends it (`http(s)://host[:port]`, nothing else), else the problem. */
export function originProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${ORIGIN_SHAPE}, got ${showValue(text)}`;
  }
  const bare = (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  // `url.origin` drops a default port and a trailing slash: an entry must be written as the browser sends it.
  if (!bare || url.origin !== text) return `${ORIGIN_SHAPE}, got ${showValue(text)}`;
  return null;
}

/** `a2a.origins`: a YAML string or list of origins; from text (`AGENTD_A2A_ORIGINS`), a comma list. */
export function originListKind(): ValueKind<readonly string[]> {
  const check = (items: unknown[]): Coerced<readonly string[]> => {
    for (const item of items) {
      const problem = typeof item === 'string' ? originProblem(item) : `${ORIGIN_SHAPE}, got ${showValue(item)}`;
      if (problem !== null) return { ok: false, problem };
    }
    return { ok: true, value: [...new Set(items as string[])] };
  };
  return {
    type: 'list of origins',
    fromYaml: (v) => (v === null ? check([]) : check(Array.isArray(v) ? v : [v])),
    fromText: (t) => check(commaList(t)),
  };
}

export const PAIRING_KEYS: Pick<KeyTable, WebKey> = {
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
  'a2a.origins': {
    kind: originListKind(),
    default: [],
    doc:
      'Browser origins (exact `http(s)://host[:port]`) that may call the listener besides its own page and loopback ' +
      'pages; any other Origin gets HTTP 403. A listed origin may also sign in to /ui (a page behind a proxy).',
  },
};
