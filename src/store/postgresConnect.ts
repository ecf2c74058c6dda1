// Opens the PostgreSQL pool a PostgresStore runs on, and maps pg's failures onto DaemonError codes. The one
// place that reads a connection URL: messages name the host and port only, never the user or the password.
import pg from 'pg';
import { DaemonError, describeError } from '../errors.js';

/** What `store.kind: postgres` needs from the config. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/db` (a secret: never logged). */
  url: string;
  /** Connections at most (`store.pool_size`). */
  poolSize: number;
  /** How long opening a connection may take before the store counts the database unreachable. */
  connectTimeoutMs?: number;
  /**
   * The server ends a session left idle inside a transaction this long (the lease TTL): a replica stopped or cut off
   * mid-transaction would otherwise hold its lease rows locked, and the claims that skip locked rows would never
   * adopt its conversations. Past the TTL it has lost its leases anyway, so nothing it could commit is lost.
   */
  idleInTransactionMs?: number;
}

/** `host:port/db` of `url`, for messages: everything that could be a credential is left out. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const db = parsed.pathname.replace(/^\//, '');
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${db ? `/${db}` : ''}`;
  } catch {
    return '(an unparseable store.url)';
  }
}

/** BIGINT (int8) columns come back as numbers: every one the store keeps (ms stamps, counters) fits a double. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** A pool over `opts.url`; idle-client errors (the server went away) are reported, not thrown. */
export function createPool(opts: PostgresOptions, onError: (err: Error) => void): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5_000,
    ...(opts.idleInTransactionMs ? { idle_in_transaction_session_timeout: opts.idleInTransactionMs } : {}),
    types,
  });
  pool.on('error', onError);
  return pool;
}

/** SQLSTATE classes that say the database cannot be reached or is going away: the store is down, not wrong. */
function isConnectionLoss(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return err instanceof Error && /timeout|terminat|Connection/i.test(err.message);
  return /^(08|57P|53)/.test(code) || /^E(CONN|HOST|NET|PIPE|TIMEDOUT|AI_AGAIN|NOTFOUND)/.test(code);
}

/** The error for a database that does not answer at start (exit 2): names the host, never a credential. */
export function unreachableError(where: string, err: unknown): DaemonError {
  return new DaemonError('store_unreachable', `store postgres ${where} is unreachable: ${plainReason(err)}`);
}

/** pg's own words, or its error code when it gives none. */
function plainReason(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const text = describeError(err);
  return text === '' && typeof code === 'string' ? code : text;
}

/**
 * Translates a pg failure into a DaemonError naming the store: a lost connection is `store_io` (retryable: the
 * pool reconnects, and `/readyz` says not ready meanwhile); a DaemonError passes through unchanged.
 */
export function pgFailure(err: unknown, where: string, doing: string): unknown {
  if (err instanceof DaemonError) return err;
  if (isConnectionLoss(err)) {
    return new DaemonError('store_io', `store postgres ${where}: ${doing} failed: ${plainReason(err)}`, true);
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    return new DaemonError('internal', `store postgres ${where}: ${doing} failed: ${plainReason(err)} (${code})`);
  }
  return err;
}
