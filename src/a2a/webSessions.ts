// Browser sessions of the web UI (issue 18 item 4): a sign-in with a bearer token mints an opaque session id kept
// in memory only and sent back as an `HttpOnly; SameSite=Strict` cookie. The session keeps the token, so each request
// is authenticated again by `a2a.principals` (a reload that drops the principal ends its sessions at once). A
// session opened with a one-time pairing code (pairingCodes.ts) keeps the principal id the code was issued for, which
// the caller resolves against the current config on every request (pairedPrincipal).
import { randomBytes } from 'node:crypto';

/** The cookie's name; its value is 32 random bytes in hex, never the token itself. */
export const SESSION_COOKIE = 'agentd_session';
/** A session lasts this long from sign-in (a restart ends every session). */
const SESSION_TTL_MS = 12 * 3_600_000;
const MAX_SESSIONS = 1_000;

type Session = ({ token: string } | { principalId: string }) & { expires: number };

export class WebSessions {
  private readonly sessions = new Map<string, Session>();

  /** A new session for `token` (already checked by the caller); returns its id. */
  open(token: string, now: number): string {
    return this.add({ token, expires: now + SESSION_TTL_MS }, now);
  }

  /** A new session acting as the principal `principalId` (a pairing code was redeemed for it); returns its id. */
  openPaired(principalId: string, now: number): string {
    return this.add({ principalId, expires: now + SESSION_TTL_MS }, now);
  }

  /** Live sessions opened with a pairing code (`pairing.code` answers it as `sessions`). */
  pairedCount(now: number): number {
    this.sweep(now);
    let count = 0;
    for (const s of this.sessions.values()) if ('principalId' in s) count++;
    return count;
  }

  private add(session: Session, now: number): string {
    this.sweep(now);
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const id = randomBytes(32).toString('hex');
    this.sessions.set(id, session);
    return id;
  }

  /** The token of the session the cookie header names, or null (none, unknown, expired, or a paired one). */
  tokenOf(cookieHeader: string | undefined, now: number): string | null {
    const session = this.live(cookieHeader, now);
    return session && 'token' in session ? session.token : null;
  }

  /** The principal id of the paired session the cookie header names, or null. */
  pairedOf(cookieHeader: string | undefined, now: number): string | null {
    const session = this.live(cookieHeader, now);
    return session && 'principalId' in session ? session.principalId : null;
  }

  private live(cookieHeader: string | undefined, now: number): Session | null {
    const id = sessionIdOf(cookieHeader);
    if (id === null) return null;
    const session = this.sessions.get(id);
    if (!session) return null;
    if (session.expires <= now) {
      this.sessions.delete(id);
      return null;
    }
    return session;
  }

  close(cookieHeader: string | undefined): void {
    const id = sessionIdOf(cookieHeader);
    if (id !== null) this.sessions.delete(id);
  }

  private sweep(now: number): void {
    for (const [id, s] of this.sessions) if (s.expires <= now) this.sessions.delete(id);
  }
}

/** The session id in a `Cookie` header, or null. */
export function sessionIdOf(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === SESSION_COOKIE && value && /^[0-9a-f]{64}$/.test(value)) return value;
  }
  return null;
}

/** The `Set-Cookie` value: HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure on https. */
export function sessionCookie(id: string, secure: boolean): string {
  const maxAge = Math.floor(SESSION_TTL_MS / 1000);
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}

/** The cookie that clears the session on sign-out. */
export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

/**
 * A state-changing call that rides a cookie must come from the page the daemon served: its `Origin` names the host
 * the request was sent to (a cross-site form or script cannot forge that header).
 */
export function sameOrigin(origin: string | undefined, host: string | undefined, secure: boolean): boolean {
  if (origin === undefined || host === undefined) return false;
  return origin === `${secure ? 'https' : 'http'}://${host}`;
}
