// Browser callers on the listener (interfaces §2.2, case 9): the DNS-rebinding guard and CORS. A request that
// carries an `Origin` must come from the daemon's own page, a loopback page, or an origin listed in `a2a.origins`,
// else HTTP 403; an allowed cross-origin caller is answered with CORS headers, its preflight (`OPTIONS`) with the
// methods and headers it may use, and the Private Network Access grant only when the browser asked for it.
// Pure: a request's headers in, a verdict and headers out; the listener writes them.
import { isLoopbackHost } from '../config/a2aKeys.js';

export type OriginVerdict =
  /** No Origin (not a browser) or the daemon's own page: nothing to add. */
  | { kind: 'plain' }
  /** A cross-origin page the daemon trusts: answer with these CORS headers. */
  | { kind: 'cors'; headers: Record<string, string> }
  | { kind: 'refused'; reason: string };

export const PREFLIGHT_METHODS = 'POST, GET, OPTIONS';
export const PREFLIGHT_HEADERS = 'content-type, authorization, last-event-id, a2a-version';
export const PREFLIGHT_MAX_AGE = '600';

/** What the guard reads of a request. */
export interface OriginRequest {
  origin: string | undefined;
  host: string | undefined;
  secure: boolean;
  /** `Access-Control-Request-Private-Network` of a preflight. */
  privateNetwork?: string | undefined;
}

/** True when `origin` is the page the daemon served (its `Origin` names the host the request was sent to). */
export function ownOrigin(req: OriginRequest): boolean {
  return req.origin !== undefined && req.host !== undefined && req.origin === `${scheme(req.secure)}://${req.host}`;
}

/**
 * A page that may ride a web UI session cookie: the daemon's own, or one listed in `a2a.origins` (the same page
 * behind a proxy). Loopback pages are not enough here: another port on localhost is same-site, so SameSite=Strict
 * alone would let it send the cookie.
 */
export function sessionOrigin(req: OriginRequest, listed: readonly string[]): boolean {
  return ownOrigin(req) || (req.origin !== undefined && listed.includes(req.origin));
}

/** The verdict on a request to the listener's own routes (JSON-RPC, the feed, the card). */
export function judgeOrigin(req: OriginRequest, listed: readonly string[]): OriginVerdict {
  const { origin } = req;
  if (origin === undefined || ownOrigin(req)) return { kind: 'plain' };
  if (!listed.includes(origin) && !loopbackOrigin(origin)) {
    return { kind: 'refused', reason: `origin not allowed: ${origin} (list it in a2a.origins)` };
  }
  return { kind: 'cors', headers: { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' } };
}

/** The headers of a `204` preflight answer for an allowed cross-origin page. */
export function preflightHeaders(
  req: OriginRequest,
  verdict: OriginVerdict & { kind: 'cors' },
): Record<string, string> {
  return {
    ...verdict.headers,
    'Access-Control-Allow-Methods': PREFLIGHT_METHODS,
    'Access-Control-Allow-Headers': PREFLIGHT_HEADERS,
    'Access-Control-Max-Age': PREFLIGHT_MAX_AGE,
    // Only when asked: the grant lets a public page reach this private address (Private Network Access).
    ...(req.privateNetwork?.toLowerCase() === 'true' ? { 'Access-Control-Allow-Private-Network': 'true' } : {}),
  };
}

/**
 * The DNS-rebinding guard proper, for a loopback listener: a foreign name that resolved to this address arrives with
 * its own `Host`, and a same-origin `GET` from such a page carries no `Origin` at all. Only a loopback host, or the
 * host of a listed origin (the page behind a proxy that keeps `Host`), may call it; null when allowed.
 */
export function hostRefusal(host: string | undefined, listed: readonly string[]): string | null {
  if (host === undefined) return null;
  const name = host.replace(/:\d+$/, '');
  if (isLoopbackHost(name) || listed.some((origin) => new URL(origin).host === host)) return null;
  return `host not allowed: ${host} (a loopback listener answers loopback names; list the page's origin in a2a.origins)`;
}

/** What the listener does with a request to its own routes: refuse it, answer its preflight, or go on with headers. */
export type Guarded =
  | { kind: 'refused'; reason: string; outcome: 'host_refused' | 'origin_refused' }
  | { kind: 'preflight'; headers: Record<string, string> }
  | { kind: 'pass'; headers: Record<string, string> };

/**
 * The whole guard: `Host` (on a loopback listener), then `Origin`, then an allowed cross-origin preflight.
 * `hostOnly` for the web UI's own paths: its sign-in checks the origin itself and answers with the snippet to list it.
 */
export function guardRequest(
  req: OriginRequest & { method: string },
  listed: readonly string[],
  loopback: boolean,
  hostOnly = false,
): Guarded {
  const wrongHost = loopback ? hostRefusal(req.host, listed) : null;
  if (wrongHost !== null) return { kind: 'refused', reason: wrongHost, outcome: 'host_refused' };
  if (hostOnly) return { kind: 'pass', headers: {} };
  const verdict = judgeOrigin(req, listed);
  if (verdict.kind === 'refused') return { kind: 'refused', reason: verdict.reason, outcome: 'origin_refused' };
  if (verdict.kind === 'plain') return { kind: 'pass', headers: {} };
  if (req.method === 'OPTIONS')
    return { kind: 'preflight', headers: { ...preflightHeaders(req, verdict), Allow: PREFLIGHT_METHODS } };
  return { kind: 'pass', headers: verdict.headers };
}

/** `http(s)://localhost`, `127.x.y.z` or `[::1]`, any port (unlike agentd, an IPv6 origin is parsed, not split). */
function loopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

function scheme(secure: boolean): string {
  return secure ? 'https' : 'http';
}
