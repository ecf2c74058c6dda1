// The retry delay of a failed step (producers reference §2.7 item 7): base = backoff × 2^min(attempt−1, 10),
// spread = max(base/5, 1), delay = base − spread + (h mod (2·spread + 1)), h = FNV-1a over run id, step id and the
// attempt byte — a deterministic ±20 %. Pure.

function fnv1a(bytes: Iterable<number>): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of bytes) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

/** Milliseconds before attempt `attempt + 1` of `step` (0 when the step declares no backoff). */
export function retryDelayMs(backoffMs: number, attempt: number, runId: string, stepId: string): number {
  if (backoffMs <= 0) return 0;
  const base = backoffMs * 2 ** Math.min(attempt - 1, 10);
  const spread = Math.max(Math.floor(base / 5), 1);
  const bytes = [...new TextEncoder().encode(runId), ...new TextEncoder().encode(stepId), attempt & 0xff];
  const h = fnv1a(bytes);
  return Math.round(base - spread + Number(h % BigInt(2 * spread + 1)));
}
