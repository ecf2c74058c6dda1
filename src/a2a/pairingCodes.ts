// One-time pairing codes for the web UI (issue 18 item 4, interfaces §2.2): the daemon prints a short code, a
// browser trades it once for a session. Codes live in the store by hash (any replica redeems them), expire soon,
// are single use, and wrong guesses lock pairing for a minute. A code and the session it opens name a principal
// id, resolved against the current config on every request (pairedPrincipal). The clock is an argument; randomness comes from the injected `pick`.
import { isLoopbackHost } from '../config/a2aKeys.js';
import type { A2aConfig } from '../config/types.js';
import type { Principal } from './backend.js';
import { type Authentication, IMPLICIT_OPERATOR, principalId } from './principals.js';
import { hashSecret, type SessionKeys } from './webSessions.js';

/** Crockford's base32 without I, L, O, U: nothing a person misreads. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 8;
/** How long a code may be used (ms). */
export const PAIRING_TTL_MS = 10 * 60_000;
/** Wrong codes tolerated per window before pairing locks until the window ends (agentd: 5 within 60 s). */
const MAX_FAILURES = 5;
const FAILURE_WINDOW_MS = 60_000;

export interface IssuedCode {
  /** `XXXX-XXXX`: 40 bits from the alphabet above. */
  code: string;
  expiresAt: number;
}

/** `report`: log this refusal (while locked, once a minute at most: a guessing loop must not flood the log). */
export type Redeemed = { principalId: string } | { refused: string; locked: boolean; report: boolean };

/** A code paired as `user` acts as this principal (interfaces §2.2: "user ⇒ `user:paired`"). */
export const PAIRED_USER = 'user:paired';

type PairingView = Pick<A2aConfig, 'principals'> & { pairing: Pick<A2aConfig['pairing'], 'enabled' | 'role'> };

/** The principal id a new code signs in as: `a2a.pairing.role` operator ⇒ `operator`, user ⇒ `user:paired`. */
export function pairingPrincipalId(a2a: PairingView): string {
  return a2a.pairing.role === 'operator' ? 'operator' : PAIRED_USER;
}

/**
 * Who a paired session acts as now: its principal id resolved against the current config, so a reload that turns
 * pairing off or drops the principal ends the session at its next request.
 */
export function pairedPrincipal(a2a: PairingView, id: string): Authentication {
  if (!a2a.pairing.enabled) return { refused: 'pairing is off (a2a.pairing.enabled)' };
  if (id === 'operator' && a2a.principals.length === 0) return IMPLICIT_OPERATOR;
  if (id === PAIRED_USER && a2a.pairing.role === 'user') return { id, role: 'user', grants: [] };
  const entry = a2a.principals.find((p) => principalId(p) === id);
  if (!entry) return { refused: `the paired principal ${id} is no longer configured` };
  const principal: Principal = { id, role: entry.role, grants: [...entry.grants] };
  return principal;
}

/**
 * A code is printed at start only where nothing else can sign a browser in and only the starter can read it:
 * pairing on, no `a2a.principals` (the implicit loopback operator, whom a browser never is), a loopback listener,
 * and stderr a terminal (a log file or pipe may travel). Anyone else asks with `agentd pair`.
 */
export function wantsStartCode(a2a: PairingView, boundUrl: string, stderrIsTty: boolean): boolean {
  return (
    a2a.pairing.enabled && a2a.principals.length === 0 && isLoopbackHost(new URL(boundUrl).hostname) && stderrIsTty
  );
}

/** A code as typed: case, spaces and dashes do not matter. */
export function normalizeCode(text: string): string {
  return text.toUpperCase().replace(/[\s-]/g, '');
}

/** What a code's stored key starts with; the rest is its hash and the principal it signs in as. */
const CODE_PREFIX = 'ui.code:';
/** The principals a code can be issued for (pairingPrincipalId): a redeem tries each key. */
const CODE_PRINCIPALS = ['operator', PAIRED_USER] as const;

export class PairingCodes {
  private failures: number[] = [];
  private lockedReportAt = Number.NEGATIVE_INFINITY;

  /**
   * `pick(n)`: a uniformly random integer in [0, n) from a cryptographic source. `keys`: where codes live (the
   * store's remembered keys, by hash, until their expiry), so a code printed by one replica works on another.
   */
  constructor(
    private readonly pick: (n: number) => number,
    private readonly keys: SessionKeys,
  ) {}

  /** A new code that signs a browser in as the principal `principalId`, once, until it expires. */
  async issue(principalId: string, now: number): Promise<IssuedCode> {
    await this.keys.forget(CODE_PREFIX, now);
    let raw = '';
    for (let i = 0; i < CODE_LENGTH; i++) raw += ALPHABET[this.pick(ALPHABET.length)];
    const expiresAt = now + PAIRING_TTL_MS;
    await this.keys.remember(codeKey(raw, principalId), expiresAt);
    return { code: `${raw.slice(0, 4)}-${raw.slice(4)}`, expiresAt };
  }

  /**
   * The principal a live code pairs as (the code is then spent: deleting its key is the one step that redeems it,
   * so two replicas never both accept it), or why not. Locked pairing refuses any code; the lock is per replica.
   */
  async redeem(text: string, now: number): Promise<Redeemed> {
    this.failures = this.failures.filter((at) => at > now - FAILURE_WINDOW_MS);
    if (this.failures.length >= MAX_FAILURES) {
      const report = now - this.lockedReportAt >= FAILURE_WINDOW_MS;
      if (report) this.lockedReportAt = now;
      return { refused: 'too many pairing attempts; wait a minute', locked: true, report };
    }
    await this.keys.forget(CODE_PREFIX, now + 1);
    const given = normalizeCode(text);
    for (const principalId of CODE_PRINCIPALS) {
      if ((await this.keys.forget(codeKey(given, principalId), Number.MAX_SAFE_INTEGER)) > 0) return { principalId };
    }
    this.failures.push(now);
    return { refused: 'unknown, used or expired pairing code', locked: false, report: true };
  }
}

/** A code's stored key: its hash (never the code) and the principal it signs in as. */
function codeKey(raw: string, principalId: string): string {
  return `${CODE_PREFIX}${hashSecret(raw)}:${principalId}`;
}
