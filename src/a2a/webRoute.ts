// The web UI served by the daemon itself (issue 18 item 4, interfaces §2 and §6.2): `GET /ui` and its bundled
// assets under a strict CSP, and the sign-in that trades a bearer token for a session cookie. The page then speaks
// the same JSON-RPC and `GET /feed` as every client; this module decides nothing about tasks.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { originProblem } from '../config/pairingKeys.js';
import type { A2aConfig } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import { headerOf, readBody, sendJson } from './httpIo.js';
import { sessionOrigin } from './originGuard.js';
import { type PairingCodes, pairedPrincipal, type Redeemed } from './pairingCodes.js';
import { type Authentication, authenticate } from './principals.js';
import { authenticateRequest, isSecure } from './requestAuth.js';
import { clearedCookie, sessionCookie, type WebSessions } from './webSessions.js';

export const UI_PREFIX = '/ui';
/** Where `npm run build` bundles the page (scripts/build-web.mjs): beside this module's compiled folder. */
const ASSETS = new URL('../client/web/', import.meta.url);
const FILES: Record<string, { file: string; type: string }> = {
  '/ui': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/ui/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/ui/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/ui/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

/**
 * Nothing but the daemon's own origin: no inline script or style, no foreign host, no framing, no form posts
 * (interfaces §2.1's header, with `connect-src 'self'`: the page only ever talks to the daemon that served it).
 */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const SECURITY_HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
const SIGN_IN_BYTES = 4_096;
/** The page's own views: a deep link (`/ui/c/<context>`, `/ui/subagents/<handle>`, …) answers the app. */
const VIEW_PATH = /^\/ui\/(chat|c|tasks|status|subagents)(\/[^/]+)?\/?$/;
const PAGE = FILES['/ui'] as { file: string; type: string };

/** What the sign-in needs beside the config: the sessions, the pairing codes, the clock, and the log. */
export interface WebDesk {
  sessions: WebSessions;
  pairing?: PairingCodes;
  log: Logger;
  now: () => number;
}

const cache = new Map<string, Buffer | null>();
function asset(file: string): Buffer | null {
  if (!cache.has(file)) {
    try {
      cache.set(file, readFileSync(new URL(file, ASSETS)));
    } catch {
      cache.set(file, null);
    }
  }
  return cache.get(file) ?? null;
}

/** True for `/ui` and every path under it. */
export const isUiPath = (path: string): boolean => path === UI_PREFIX || path.startsWith(`${UI_PREFIX}/`);

/** Serves a `/ui…` request; false when the path is not the UI's. */
export function serveWebUi(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  a2a: Readonly<A2aConfig>,
  desk: WebDesk,
): boolean {
  if (!isUiPath(path)) return false;
  if (path === '/ui/session') {
    serveSession(req, res, a2a, desk).catch(() => sendJson(res, 500, { error: 'internal error' }));
    return true;
  }
  const entry = FILES[path] ?? (VIEW_PATH.test(path) ? PAGE : undefined);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendJson(
      res,
      entry ? 405 : 404,
      { error: entry ? 'method not allowed' : 'not found' },
      { headers: SECURITY_HEADERS },
    );
    return true;
  }
  const body = entry ? asset(entry.file) : null;
  if (!entry || body === null) {
    const why = entry ? 'the web UI is not built (run npm run build)' : 'not found';
    sendJson(res, entry ? 503 : 404, { error: why }, { headers: SECURITY_HEADERS });
    return true;
  }
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': entry.type,
    'Content-Length': body.length,
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

/**
 * `GET` who is signed in; `POST {token}` or `POST {code}` (a one-time pairing code) signs in; `DELETE` signs out.
 * Changes only from the daemon's own origin or one listed in `a2a.origins`.
 */
async function serveSession(
  req: IncomingMessage,
  res: ServerResponse,
  a2a: Readonly<A2aConfig>,
  desk: WebDesk,
): Promise<void> {
  const { sessions } = desk;
  const secure = isSecure(req);
  const json = (status: number, body: unknown, headers: Record<string, string> = {}): void =>
    sendJson(res, status, body, { headers: { ...SECURITY_HEADERS, 'Cache-Control': 'no-store', ...headers } });
  if (req.method === 'GET') {
    const signedIn = headerOf(req, 'cookie') !== undefined;
    const who = signedIn ? await authenticateRequest(a2a, req, sessions, desk.now()) : { refused: 'not signed in' };
    return 'refused' in who ? json(401, { error: who.refused }) : json(200, { principal: who.id, role: who.role });
  }
  const origin = headerOf(req, 'origin');
  if (!sessionOrigin({ origin, host: headerOf(req, 'host'), secure }, a2a.origins)) {
    // The snippet the operator pastes to trust this page (interfaces §2.2: the page shows it), e.g. behind a proxy.
    const snippet =
      origin === undefined || originProblem(origin) !== null ? '' : ` (to allow it: a2a: {origins: ["${origin}"]})`;
    return json(403, { error: `sign-in accepted only from the page this daemon serves or a2a.origins${snippet}` });
  }
  if (req.method === 'DELETE') {
    await sessions.close(headerOf(req, 'cookie'));
    return json(200, { signedOut: true }, { 'Set-Cookie': clearedCookie(secure) });
  }
  if (req.method !== 'POST') return json(405, { error: 'method not allowed' });
  const read = await readBody(req, SIGN_IN_BYTES, a2a.body_timeout);
  const given = read.ok ? credentialIn(read.text) : null;
  if (given === null) return json(400, { error: 'expected a JSON body {"token": "…"} or {"code": "…"}' });
  const now = desk.now();
  const ttl = a2a.pairing.ttl;
  if ('code' in given) {
    const redeemed = await redeemCode(a2a, desk, given.code, now);
    if ('refused' in redeemed) {
      if (redeemed.report) desk.log.warn('ui.pairing_refused', { reason: redeemed.refused });
      return json(redeemed.locked ? 429 : 401, { error: `sign-in refused: ${redeemed.refused}` });
    }
    const principal = pairedPrincipal(a2a, redeemed.principalId);
    if ('refused' in principal) return json(401, { error: `sign-in refused: ${principal.refused}` });
    // Who paired is logged, never the code (interfaces §2.2: `interface.paired`).
    desk.log.info('interface.paired', { principal: principal.id, role: principal.role });
    const id = await sessions.openPaired(principal.id, now, ttl);
    const cookie = sessionCookie(id, secure, ttl);
    return json(200, { principal: principal.id, role: principal.role }, { 'Set-Cookie': cookie });
  }
  const who: Authentication = authenticate(a2a, { remoteLoopback: false, authorization: `Bearer ${given.token}` });
  if ('refused' in who) return json(401, { error: `sign-in refused: ${who.refused}` });
  const id = await sessions.open(given.token, now, ttl);
  return json(200, { principal: who.id, role: who.role }, { 'Set-Cookie': sessionCookie(id, secure, ttl) });
}

async function redeemCode(a2a: Readonly<A2aConfig>, desk: WebDesk, code: string, now: number): Promise<Redeemed> {
  if (!a2a.pairing.enabled || !desk.pairing) {
    return { refused: 'pairing is off (a2a.pairing.enabled)', locked: false, report: false };
  }
  return desk.pairing.redeem(code, now);
}

function credentialIn(text: string): { token: string } | { code: string } | null {
  try {
    const body = JSON.parse(text) as { token?: unknown; code?: unknown };
    if (typeof body.code === 'string' && /^[\w -]{1,64}$/.test(body.code)) return { code: body.code };
    return typeof body.token === 'string' && /^\S{1,1024}$/.test(body.token) ? { token: body.token } : null;
  } catch {
    return null;
  }
}
