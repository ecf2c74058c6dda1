// ULID generation (Crockford base32, 26 chars: 10 of time, 16 of randomness) for inbox event ids.
// Monotonic per source: within one millisecond the random part is incremented instead of redrawn.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const MAX_TIME = 2 ** 48 - 1;

/**
 * A ULID source with its own monotonic state: ids made in the same millisecond (or after the clock stepped
 * back) keep the last time and count the random part up, so they sort in the order they were made.
 */
export function createUlidSource(): (now?: number) => string {
  let lastTime = -1;
  let lastRandom: number[] = [];
  return (now = Date.now()) => {
    const time = Math.floor(now);
    if (!Number.isFinite(time) || time < 0 || time > MAX_TIME) {
      throw new RangeError(`ulid time out of range: ${now}`);
    }
    if (time <= lastTime) {
      lastRandom = incrementBase32(lastRandom);
    } else {
      lastTime = time;
      lastRandom = drawRandom();
    }
    return encodeTime(lastTime) + lastRandom.map((d) => ALPHABET[d]).join('');
  };
}

/** A new ULID for `now` (epoch ms), from the process-wide source. */
export const newUlid: (now?: number) => string = createUlidSource();

/** The epoch ms encoded in a ULID's first 10 characters. */
export function ulidTime(id: string): number {
  let time = 0;
  for (const ch of id.slice(0, TIME_CHARS).toUpperCase()) {
    const digit = ALPHABET.indexOf(ch);
    if (digit < 0) throw new RangeError(`not a ulid: ${id}`);
    time = time * 32 + digit;
  }
  return time;
}

function encodeTime(time: number): string {
  let out = '';
  let rest = time;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function drawRandom(): number[] {
  // 16 base32 digits = 80 bits = 10 bytes; take 5 bits per digit.
  const bytes = randomBytes(10);
  const digits: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      digits.push((acc >> bits) & 31);
    }
    acc &= (1 << bits) - 1;
  }
  return digits;
}

function incrementBase32(digits: number[]): number[] {
  const next = digits.slice();
  for (let i = next.length - 1; i >= 0; i--) {
    const d = next[i] ?? 0;
    if (d < 31) {
      next[i] = d + 1;
      return next;
    }
    next[i] = 0;
  }
  // 2^80 ids in one millisecond cannot happen in practice; failing is better than going out of order.
  throw new RangeError('ulid random part overflowed within one millisecond');
}
