// Who is calling the A2A listener (reference §17.3): a bearer token, `any`, or the implicit loopback operator.
// Pure: headers in, a Principal or a refusal out. Ownership of tasks is the backend's, not this module's.
import type { A2aPrincipalConfig } from '../config/types.js';
import type { Principal } from './backend.js';

/** What the listener knows about a request when it authenticates it. */
export interface CallerFacts {
  /** The raw `Authorization` header, if any. */
  authorization?: string;
  /** The peer address is loopback (127.0.0.0/8, ::1). */
  remoteLoopback: boolean;
  /** The `Origin` header, if any: a browser request is never the implicit operator (RFC 0043). */
  origin?: string;
}

export type Authentication = Principal | { refused: string };

/** The principal with no configuration at all: the loopback operator. */
export const IMPLICIT_OPERATOR: Principal = Object.freeze({ id: 'operator', role: 'operator', grants: [] });

/** `operator`, `user:<id>`, `agent:<id>`: the id a configured principal acts and owns tasks under. */
export function principalId(entry: Pick<A2aPrincipalConfig, 'id' | 'role'>): string {
  return entry.role === 'operator' ? 'operator' : `${entry.role}:${entry.id}`;
}

/**
 * Matches a caller against `a2a.principals` in order. A presented bearer token must equal some principal's token
 * (compared in constant time) or the caller is refused, even where an `{any: true}` entry exists; `{any: true}`
 * matches a caller that presents no token. With no principals configured, a loopback caller without an `Origin`
 * header is the operator and everyone else is refused.
 */
export function authenticate(
  config: { readonly principals: readonly A2aPrincipalConfig[] },
  caller: CallerFacts,
): Authentication {
  const presented = bearerOf(caller.authorization);
  if (presented !== null && 'refused' in presented) return presented;
  if (config.principals.length === 0) {
    if (presented !== null) return { refused: 'unknown bearer token' };
    if (!caller.remoteLoopback) return { refused: 'authentication required' };
    if (caller.origin !== undefined) return { refused: 'a browser request is never the implicit operator' };
    return IMPLICIT_OPERATOR;
  }
  for (const entry of config.principals) {
    const matches =
      'bearer' in entry.match
        ? presented !== null && sameSecret(presented.token, entry.match.bearer)
        : presented === null;
    if (matches) return { id: principalId(entry), role: entry.role, grants: [...entry.grants] };
  }
  return { refused: presented === null ? 'authentication required' : 'unknown bearer token' };
}

/** The token of `Authorization: Bearer <token>`; null when no header; a refusal for any other shape. */
function bearerOf(header: string | undefined): { token: string } | { refused: string } | null {
  if (header === undefined || header === '') return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match?.[1]) return { refused: 'expected Authorization: Bearer <token>' };
  return { token: match[1] };
}

/** Equality whose time depends only on the lengths, never on where the strings first differ. */
export function sameSecret(given: string, expected: string): boolean {
  const length = Math.max(given.length, expected.length);
  let diff = given.length ^ expected.length;
  for (let i = 0; i < length; i++) diff |= (given.charCodeAt(i) || 0) ^ (expected.charCodeAt(i) || 0);
  return diff === 0;
}
