// Maps better-sqlite3 failures onto DaemonError codes (store_locked, store_corrupt, store_io, internal).
// The one place that reads SQLite result codes; messages always name the store's path.
import { DaemonError, describeError } from '../errors.js';

/** The SQLite result code `err` carries (`SQLITE_…`), or null. */
export function sqliteCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : null;
}

/** True when SQLite itself says the file is damaged or not a database (never an I/O or permission failure). */
export function isCorruption(err: unknown): boolean {
  const code = sqliteCode(err);
  return code !== null && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

/** True when `err` means another connection holds the database lock. */
export function isBusy(err: unknown): boolean {
  const code = sqliteCode(err);
  return code !== null && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** The error for a store another process holds; `pid` names the holder when its pid file says so. */
export function lockedError(dir: string, pid: number | null): DaemonError {
  return new DaemonError('store_locked', `store ${dir} is held by another process (pid ${pid ?? 'unknown'})`);
}

/** The error for a file that is not a usable agentd database. */
export function corruptError(file: string, reason: string): DaemonError {
  return new DaemonError('store_corrupt', `store ${file} is not a valid agentd database: ${reason}`);
}

/**
 * Translates a SQLite failure on `file` into a DaemonError; anything else (a DaemonError, a programming
 * error such as a closed connection) passes through unchanged.
 */
export function storeFailure(err: unknown, file: string, doing: string): unknown {
  const code = sqliteCode(err);
  if (code === null) return err;
  const detail = describeError(err);
  if (isCorruption(err)) return corruptError(file, detail);
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    return new DaemonError('internal', `store ${file}: ${doing} broke a constraint: ${detail}`);
  }
  // I/O, disk full, busy past the lock: worth another try once the disk or the holder recovers.
  return new DaemonError('store_io', `store ${file}: ${doing} failed: ${detail} (${code})`, true);
}
