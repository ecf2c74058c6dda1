// Opens the SQLite store directory: creates it (0700), takes the single-writer lock, prepares the schema and
// writes the pid file that names the holder. Fails fast with store_locked / store_corrupt / store_io.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DaemonError, describeError } from '../errors.js';
import { checkIntegrity, type IntegrityCheck, type IntegrityChecked } from './sqliteCheck.js';
import { corruptError, isBusy, lockedError, storeFailure } from './sqliteErrors.js';
import { checkExisting, prepareSchema } from './sqliteSchema.js';

const DB_FILE = 'agentd.db';
const PID_FILE = 'agentd.pid';

/** An open, locked database and what the opener learned. */
export interface OpenedDatabase {
  db: Database.Database;
  dir: string;
  file: string;
  generation: number;
  /** The integrity check that ran at open, or null (off, or a new file). */
  checked: IntegrityChecked | null;
}

/**
 * Opens `<dir>/agentd.db` after its integrity check (`integrity`, sqliteCheck.ts) and holds it for the life of the connection: EXCLUSIVE locking mode plus a write
 * transaction at open keep the file lock taken, and a zero busy timeout makes a second opener fail at once.
 */
export function openSqliteDatabase(dirPath: string, integrity: IntegrityCheck = 'quick'): OpenedDatabase {
  const dir = path.resolve(dirPath);
  const file = path.join(dir, DB_FILE);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new DaemonError('store_io', `store ${dir} cannot be created: ${describeError(err)}`);
  }
  let db: Database.Database;
  let checked: IntegrityChecked | null;
  try {
    // Before anything below writes (journal mode, schema, generation): a damaged file stays as it was.
    checked = checkIntegrity(file, integrity);
    db = new Database(file, { timeout: 0 });
  } catch (err) {
    throw openFailure(err, dir, file);
  }
  try {
    // EXCLUSIVE before WAL: no shared-memory index, and the lock stays with this connection.
    db.pragma('locking_mode = EXCLUSIVE');
    const invalid = checkExisting(db);
    if (invalid !== null) throw corruptError(file, invalid);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    const generation = prepareSchema(db);
    writeFileSync(path.join(dir, PID_FILE), `${process.pid}\n`, { mode: 0o600 });
    return { db, dir, file, generation, checked };
  } catch (err) {
    db.close();
    throw openFailure(err, dir, file);
  }
}

/** Removes the pid file if it still names this process (another holder may have replaced it). */
export function releasePidFile(dir: string): void {
  const pidFile = path.join(dir, PID_FILE);
  if (readPid(pidFile) === process.pid) rmSync(pidFile, { force: true });
}

function openFailure(err: unknown, dir: string, file: string): unknown {
  if (isBusy(err)) return lockedError(dir, readPid(path.join(dir, PID_FILE)));
  const mapped = storeFailure(err, file, 'open');
  if (mapped instanceof DaemonError) return mapped;
  return new DaemonError('store_io', `store ${file} cannot be opened: ${describeError(err)}`);
}

function readPid(pidFile: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
