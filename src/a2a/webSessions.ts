// Browser sessions of the web UI (issue 18 item 4): a sign-in mints an opaque session sent back as an `HttpOnly;
// SameSite=Strict` cookie. The store keeps only the cookie's hash (remembered keys with their expiry), so any
// replica over the same store accepts it (interfaces §4.4) and a restart keeps it; nothing secret is stored. The
// cookie names what it stands for: the hash of the bearer token it was opened with (authenticated again by
// `a2a.principals` on every request, so a reload that drops the token ends it) or the principal id a pairing code
// named (pairingCodes.ts, resolved against the current config on every request).
import { createHash, randomBytes } from 'node:crypto';
import type { TimersPort } from '../store/store.js';

/** The cookie's name; its value is `<64 hex random>.<expiry ms>.<what it stands for>`, never a token. */
export const SESSION_COOKIE = 'agentd_session';
const KEY_PREFIX = 'ui.session:';
const COOKIE_VALUE = /^[0-9a-f]{64}\.\d{1,16}\.(t[0-9a-f]{64}|p[A-Za-z0-9_-]{1,300})$/;
/** Expired keys are swept at most this often per replica. */
const SWEEP_MS = 60_000;

/** Where sessions and pairing codes live: the store's remembered keys (`at` = the expiry), or memory in tests. */
export type SessionKeys = Pick<TimersPort, 'seen' | 'remember' | 'forget'>;

/** What a live session stands for: a bearer token (by its hash), or a paired principal id. */
export type SessionOf = { tokenHash: string } | { principalId: string };

/** The SHA-256 of a secret, hex: what sessions and codes are stored and compared as. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export class WebSessions {
  /** Expiries of the paired sessions this replica opened (`pairing.code` answers their count). */
  private paired: number[] = [];
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly keys: SessionKeys) {}

  /** A new session for `token` (already checked by the caller), lasting `ttlMs`; returns the cookie value. */
  open(token: string, now: number, ttlMs: number): Promise<string> {
    return this.add(`t${hashSecret(token)}`, now + ttlMs, now);
  }

  /** A new session acting as the principal `principalId` (a pairing code was redeemed for it). */
  openPaired(principalId: string, now: number, ttlMs: number): Promise<string> {
    this.paired = [...this.paired.filter((at) => at > now), now + ttlMs];
    return this.add(`p${Buffer.from(principalId).toString('base64url')}`, now + ttlMs, now);
  }

  /** Live paired sessions opened through this replica. */
  pairedCount(now: number): number {
    return this.paired.filter((at) => at > now).length;
  }

  private async add(stands: string, expires: number, now: number): Promise<string> {
    await this.sweep(now);
    const value = `${randomBytes(32).toString('hex')}.${expires}.${stands}`;
    await this.keys.remember(keyOf(value), expires);
    return value;
  }

  /** What the session the cookie header names stands for, or null (none, unknown, expired, or signed out). */
  async of(cookieHeader: string | undefined, now: number): Promise<SessionOf | null> {
    const value = sessionIdOf(cookieHeader);
    if (value === null) return null;
    const [, expires = '0', stands = ''] = value.split('.');
    if (Number(expires) <= now || !(await this.keys.seen(keyOf(value)))) return null;
    if (stands.startsWith('t')) return { tokenHash: stands.slice(1) };
    return { principalId: Buffer.from(stands.slice(1), 'base64url').toString() };
  }

  async close(cookieHeader: string | undefined): Promise<void> {
    const value = sessionIdOf(cookieHeader);
    if (value !== null) await this.keys.forget(keyOf(value), Number.MAX_SAFE_INTEGER);
  }

  private async sweep(now: number): Promise<void> {
    if (now - this.sweptAt < SWEEP_MS) return;
    this.sweptAt = now;
    await this.keys.forget(KEY_PREFIX, now);
  }
}

/** A session's stored key: the hash of its cookie value, so the store never holds a usable cookie. */
function keyOf(value: string): string {
  return `${KEY_PREFIX}${hashSecret(value)}`;
}

/** The session cookie's value in a `Cookie` header, or null. */
export function sessionIdOf(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === SESSION_COOKIE && value && COOKIE_VALUE.test(value)) return value;
  }
  return null;
}

/**
 * The `Set-Cookie` value: HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure on https,
 * kept by the browser as long as the session lasts.
 */
export function sessionCookie(id: string, secure: boolean, ttlMs: number): string {
  const maxAge = Math.floor(ttlMs / 1000);
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}

/** The cookie that clears the session on sign-out. */
export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
