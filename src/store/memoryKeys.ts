// Expiry and listing rules for the memory tool's keys, shared by every Store implementation.
// Pure: no I/O; callers feed entries in ascending key order.

/** Whether an entry with `expires` reads as absent at `now` (it expires strictly after its `expires` ms). */
export function isExpired(expires: number | null, now: number): boolean {
  return expires !== null && now > expires;
}

/** The result of `Store.memoryList`. */
export interface MemoryListing {
  keys: string[];
  truncated: boolean;
}

/**
 * Picks up to `limit` live keys starting with `prefix` from `sorted` (ascending keys). Entries before the prefix
 * are skipped; iteration stops at the first key past it, so a range scan from `prefix` can feed this directly.
 */
export function listLiveKeys(
  sorted: Iterable<{ key: string; expires: number | null }>,
  prefix: string,
  limit: number,
  now: number,
): MemoryListing {
  const max = Math.max(0, Math.floor(limit));
  const keys: string[] = [];
  for (const entry of sorted) {
    if (!entry.key.startsWith(prefix)) {
      if (compareKeys(entry.key, prefix) < 0) continue;
      break;
    }
    if (isExpired(entry.expires, now)) continue;
    if (keys.length === max) return { keys, truncated: true };
    keys.push(entry.key);
  }
  return { keys, truncated: false };
}

/**
 * Orders keys by Unicode code point, which is SQLite's byte order over UTF-8 (plain `<` compares UTF-16 units
 * and disagrees above U+FFFF), so every store lists keys in the same order.
 */
export function compareKeys(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i) ?? 0;
    const cb = b.codePointAt(j) ?? 0;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  if (i < a.length) return 1;
  return j < b.length ? -1 : 0;
}
