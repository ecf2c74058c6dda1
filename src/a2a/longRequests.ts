// Streams and blocking sends held at once, per principal (issue 13): a busy connection cannot be evicted, so one
// principal holding every connection open would lock everyone else out. Counts only; the listener refuses.

/**
 * The most long requests one principal may hold: `a2a.max_long_requests`, and never more than half of
 * `a2a.max_connections`, so that one principal always leaves room for the others (the operator included).
 */
export function longRequestLimit(a2a: { max_long_requests: number; max_connections: number }): number {
  return Math.max(1, Math.min(a2a.max_long_requests, Math.floor(a2a.max_connections / 2)));
}

/** True for a request that holds its connection until a task settles or a stream ends. */
export function isLongRequest(method: string, body: Record<string, unknown>): boolean {
  if (method === 'SendStreamingMessage' || method === 'SubscribeToTask') return true;
  if (method !== 'SendMessage') return false;
  const params = body['params'] as { configuration?: { returnImmediately?: unknown } } | undefined;
  return params?.configuration?.returnImmediately !== true;
}

export class LongRequests {
  private readonly held = new Map<string, number>();

  /** Takes a place for `principal` under `limit`: the release function, or null when it holds `limit` already. */
  hold(principal: string, limit: number): (() => void) | null {
    const count = this.held.get(principal) ?? 0;
    if (count >= limit) return null;
    this.held.set(principal, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(principal) ?? 1) - 1;
      if (left === 0) this.held.delete(principal);
      else this.held.set(principal, left);
    };
  }
}
