// A size in bytes as a config value: an integer, or a number with a unit (`256MB`, `1.5GiB`, `512k`); "0" is zero.
// Pure.
import { type Coerced, showValue, type ValueKind } from './kinds.js';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** `256MB` → 256000000; null when `text` is not a size. */
export function parseByteSize(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = m ? UNITS[(m[2] ?? '').toLowerCase()] : undefined;
  if (!m || unit === undefined) return null;
  const bytes = Math.round(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** A size as a user would write it: the unit that divides it into the smallest number (`268435456` → `256MiB`). */
export function formatByteSize(bytes: number): string {
  let best = String(bytes);
  let smallest = bytes;
  for (const unit of ['kB', 'MB', 'GB', 'TB', 'KiB', 'MiB', 'GiB', 'TiB']) {
    const size = UNITS[unit.toLowerCase()] as number;
    if (bytes > 0 && bytes % size === 0 && bytes / size < smallest) {
      smallest = bytes / size;
      best = `${smallest}${unit}`;
    }
  }
  return best;
}

/** A non-negative size in bytes. */
export function byteSizeKind(): ValueKind<number> {
  const check = (v: unknown): Coerced<number> => {
    const bytes = typeof v === 'number' ? (Number.isSafeInteger(v) && v >= 0 ? v : null) : null;
    const parsed = typeof v === 'string' ? parseByteSize(v) : bytes;
    return parsed === null
      ? { ok: false, problem: `expected a size such as 256MB, 1GiB or 0, got ${showValue(v)}` }
      : { ok: true, value: parsed };
  };
  return { type: 'size in bytes (256MB, 1GiB, 0)', fromYaml: check, fromText: check };
}
