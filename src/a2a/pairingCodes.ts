// One-time pairing codes for the web UI (issue 18 item 4, interfaces §2.2): the daemon prints a short code, a
// browser trades it once for a session. Codes live in memory only, expire soon, are single use, and wrong guesses
// lock pairing for a minute. The clock is an argument; randomness comes from the injected `pick`.
import type { Principal } from './backend.js';
import { sameSecret } from './principals.js';

/** Crockford's base32 without I, L, O, U: nothing a person misreads. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 8;
/** How long a code may be used (ms). */
export const PAIRING_TTL_MS = 10 * 60_000;
/** Wrong codes tolerated per window before pairing locks until the window ends (agentd: 5 within 60 s). */
const MAX_FAILURES = 5;
const FAILURE_WINDOW_MS = 60_000;
/** Live codes kept at most; the oldest goes first. */
const MAX_CODES = 16;

export interface IssuedCode {
  /** `XXXX-XXXX`: 40 bits from the alphabet above. */
  code: string;
  expiresAt: number;
}

export type Redeemed = { principal: Principal } | { refused: string; locked: boolean };

/** A code as typed: case, spaces and dashes do not matter. */
export function normalizeCode(text: string): string {
  return text.toUpperCase().replace(/[\s-]/g, '');
}

export class PairingCodes {
  private readonly codes: Array<{ code: string; principal: Principal; expiresAt: number }> = [];
  private failures: number[] = [];

  /** `pick(n)`: a uniformly random integer in [0, n) from a cryptographic source. */
  constructor(private readonly pick: (n: number) => number) {}

  /** A new code that signs a browser in as `principal`, once, until it expires. */
  issue(principal: Principal, now: number): IssuedCode {
    this.sweep(now);
    if (this.codes.length >= MAX_CODES) this.codes.shift();
    let raw = '';
    for (let i = 0; i < CODE_LENGTH; i++) raw += ALPHABET[this.pick(ALPHABET.length)];
    const expiresAt = now + PAIRING_TTL_MS;
    this.codes.push({ code: raw, principal, expiresAt });
    return { code: `${raw.slice(0, 4)}-${raw.slice(4)}`, expiresAt };
  }

  /** The principal a live code pairs as (the code is then spent), or why not. Locked pairing refuses any code. */
  redeem(text: string, now: number): Redeemed {
    this.sweep(now);
    if (this.failures.length >= MAX_FAILURES) {
      return { refused: 'too many pairing attempts; wait a minute', locked: true };
    }
    const given = normalizeCode(text);
    // Every live code is compared, so the time taken says nothing about which one came close.
    let found = -1;
    this.codes.forEach((entry, i) => {
      if (sameSecret(given, entry.code) && found < 0) found = i;
    });
    const entry = found < 0 ? undefined : this.codes.splice(found, 1)[0];
    if (entry) return { principal: entry.principal };
    this.failures.push(now);
    return { refused: 'unknown, used or expired pairing code', locked: false };
  }

  private sweep(now: number): void {
    for (let i = this.codes.length - 1; i >= 0; i--)
      if ((this.codes[i]?.expiresAt ?? 0) <= now) this.codes.splice(i, 1);
    this.failures = this.failures.filter((at) => at > now - FAILURE_WINDOW_MS);
  }
}
