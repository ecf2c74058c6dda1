// The runtime's own error type: a code from a closed union and a retry flag. Only cli/ maps it to an exit code.
// JSON-RPC wire errors are a different class (a2a/), never a DaemonError.

export type DaemonErrorCode =
  | 'config_invalid'
  | 'usage_invalid'
  | 'store_locked'
  | 'store_corrupt'
  | 'store_io'
  /** The store takes no commits right now (disk full): retryable, and its message is safe to show a caller. */
  | 'store_unavailable'
  | 'store_conflict'
  /** The PostgreSQL store cannot be reached at start (exit 2, naming the host). */
  | 'store_unreachable'
  /** A write for a conversation whose lease this replica no longer holds (a stale fencing epoch). */
  | 'store_fenced'
  | 'intel_unavailable'
  | 'intel_fatal'
  | 'mcp_unreachable'
  | 'budget_exhausted'
  | 'quota_exceeded'
  | 'worker_failed'
  | 'internal';

export class DaemonError extends Error {
  override name = 'DaemonError';
  constructor(
    readonly code: DaemonErrorCode,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

/** A short, single-line description of any thrown value (for events and tool errors). */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.name;
  return String(err).split('\n')[0] ?? 'unknown error';
}
