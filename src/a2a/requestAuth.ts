// Who sent an HTTP request to the listener: one function for every route (JSON-RPC, the feed, the web UI), so each
// authenticates alike (reference §17.3). A web UI session cookie stands for the bearer token it was opened with, or
// for the principal id a pairing code named, resolved against the current config on each request.
// A token session is found by its token's hash among the configured bearers.
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../config/a2aKeys.js';
import type { A2aConfig } from '../config/types.js';
import { headerOf } from './httpIo.js';
import { sessionOrigin } from './originGuard.js';
import { pairedPrincipal } from './pairingCodes.js';
import { type Authentication, authenticate, principalId, sameSecret } from './principals.js';
import { hashSecret, type WebSessions } from './webSessions.js';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** True when the request came over TLS (cookies are then `Secure`, origins `https://`). */
export function isSecure(req: IncomingMessage): boolean {
  return 'encrypted' in req.socket && req.socket.encrypted === true;
}

/**
 * The request's principal (bearer token, `any`, a web UI session, or the loopback operator), or why it is refused.
 * An `Authorization` header wins over a cookie; a session rides only state-changing calls from the daemon's own page or a listed origin.
 */
export async function authenticateRequest(
  a2a: Readonly<A2aConfig>,
  req: IncomingMessage,
  sessions: WebSessions | undefined,
  now: number,
): Promise<Authentication> {
  const authorization = headerOf(req, 'authorization');
  const origin = headerOf(req, 'origin');
  const remoteLoopback = isLoopbackHost(req.socket.remoteAddress ?? '');
  const session = authorization === undefined && sessions ? await sessions.of(headerOf(req, 'cookie'), now) : null;
  if (session !== null) {
    const page = { origin, host: headerOf(req, 'host'), secure: isSecure(req) };
    if (!SAFE_METHODS.has(req.method ?? '') && !sessionOrigin(page, a2a.origins)) {
      return { refused: `cross-origin ${req.method} with a session cookie refused (Origin ${origin ?? 'absent'})` };
    }
    if ('principalId' in session) return pairedPrincipal(a2a, session.principalId);
    return tokenPrincipal(a2a, session.tokenHash);
  }
  return authenticate(a2a, {
    remoteLoopback,
    ...(authorization === undefined ? {} : { authorization }),
    ...(origin === undefined ? {} : { origin }),
  });
}

/** The principal whose bearer token hashes to the session's, in the current config (a reload may have dropped it). */
function tokenPrincipal(a2a: Readonly<A2aConfig>, tokenHash: string): Authentication {
  for (const entry of a2a.principals) {
    if ('bearer' in entry.match && sameSecret(hashSecret(entry.match.bearer), tokenHash)) {
      return { id: principalId(entry), role: entry.role, grants: [...entry.grants] };
    }
  }
  return { refused: 'the token this session was opened with is no longer configured' };
}
