// The integrity check at open: SQLite's `quick_check` (or the full `integrity_check`) on a read-only connection,
// before the opener writes anything (WAL setup, migrations, the generation bump). A read-only connection never
// checkpoints on close, so a damaged file is left byte-identical for its recovery (docs/concepts/durability.md "Recovering a store").
// Only SQLite's own verdict is corruption; a file it could not read (I/O, full disk, permissions) is an I/O error.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DaemonError, describeError } from '../errors.js';
import { corruptError, isBusy, isCorruption, sqliteCode } from './sqliteErrors.js';

/** `store.integrity_check`: quick (default), full, or off. */
export type IntegrityCheck = 'quick' | 'full' | 'off';

/**
 * At most this many problems are collected: the first tells the operator enough, and the check stops early on a
 * badly damaged file. quick_check is linear in the file's pages and skips the index cross-checks that make
 * integrity_check slow on a large store (sqlite.org/pragma.html#pragma_quick_check).
 */
const MAX_ERRORS = 3;

/** What a failed check tells the operator to run (docs/concepts/durability.md "Recovering a store"). */
export function recoveryHint(file: string): string {
  return `recover it with: sqlite3 -readonly '${file}' .recover | sqlite3 '${file}.recovered' (docs/concepts/durability.md, "Recovering a store")`;
}

/** What a check that ran reports (`store.checked`). */
export interface IntegrityChecked {
  mode: 'quick' | 'full';
  ms: number;
}

/**
 * Checks the existing database `file`; a missing file passes (it is created next). Throws `store_corrupt` naming
 * the file and the recovery command when SQLite finds damage, `store_io` when the file could not be read, or the
 * `isBusy` error for the caller to map (another holder). Returns what ran, or null when nothing did.
 */
export function checkIntegrity(
  file: string,
  mode: IntegrityCheck,
  now: () => number = Date.now,
): IntegrityChecked | null {
  if (mode === 'off' || !existsSync(file)) return null;
  const started = now();
  const pragma = mode === 'full' ? 'integrity_check' : 'quick_check';
  let db: Database.Database | null = null;
  let rows: string[];
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: 0 });
    rows = (db.pragma(`${pragma}(${MAX_ERRORS})`) as Array<Record<string, unknown>>).map((r) =>
      String(Object.values(r)[0]),
    );
  } catch (err) {
    if (isBusy(err)) throw err;
    // Not a database at all: nothing to check or recover, the opener's usual refusal says so.
    if (sqliteCode(err) === 'SQLITE_NOTADB') throw corruptError(file, describeError(err));
    if (!isCorruption(err)) throw unreadable(file, pragma, err);
    rows = [describeError(err)];
  } finally {
    db?.close();
  }
  if (rows.length === 1 && rows[0] === 'ok') return { mode, ms: now() - started };
  const found = rows.join('; ').replace(/\s+/g, ' ').trim();
  throw new DaemonError(
    'store_corrupt',
    `store ${file} failed its ${pragma}: ${found}; nothing was written to it; ${recoveryHint(file)}`,
  );
}

/**
 * A check that could not read the file (SQLITE_IOERR*, FULL, CANTOPEN, a permission error) says nothing about
 * damage: calling it corrupt would send the operator to a recovery that loses rows from a sound store.
 */
function unreadable(file: string, pragma: string, err: unknown): DaemonError {
  const code = sqliteCode(err) ?? (err as { code?: unknown }).code;
  const why = `${describeError(err)}${typeof code === 'string' ? ` (${code})` : ''}`;
  return new DaemonError(
    'store_io',
    `store ${file} could not be read for its ${pragma}: ${why}; it is not known to be damaged and was not changed; ` +
      'free disk space or fix its permissions and start again',
    true,
  );
}
