// The SQLite store's timers port (schema 6): durable timers and the keys of firings already made.
// better-sqlite3 is synchronous, so each call has written before its promise settles.
import type Database from 'better-sqlite3';
import type { TimerRecord } from '../domain/timer.js';
import type { TimersPort } from './store.js';

/** A timer as both SQL stores keep it (payload as JSON text). */
export interface TimerRow {
  id: string;
  owner: string;
  kind: string;
  due: number;
  payload: string;
}

export const toTimer = (row: TimerRow): TimerRecord => ({ ...row, payload: JSON.parse(row.payload) as unknown });
export const timerParams = (t: TimerRecord): TimerRow => ({
  id: t.id,
  owner: t.owner,
  kind: t.kind,
  due: t.due,
  payload: JSON.stringify(t.payload ?? null),
});

/** The timers port over `db`; `run` turns a SQLite failure into the store's error naming what it was doing. */
export function sqliteTimersPort(
  db: Database.Database,
  run: <T>(doing: string, op: () => T) => Promise<T>,
): TimersPort {
  const arm = db.prepare<[TimerRow], void>(
    `INSERT INTO timers (id, owner, kind, due, payload) VALUES (@id, @owner, @kind, @due, @payload)
     ON CONFLICT (id) DO UPDATE SET owner = @owner, kind = @kind, due = @due, payload = @payload`,
  );
  const all = db.prepare<[], TimerRow>('SELECT id, owner, kind, due, payload FROM timers ORDER BY due, id');
  const drop = db.prepare<[string], void>('DELETE FROM timers WHERE id = ?');
  const dropOwner = db.prepare<[string], void>('DELETE FROM timers WHERE owner = ?');
  const seen = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM fired_keys WHERE key = ?');
  const remember = db.prepare<[string, number]>('INSERT OR IGNORE INTO fired_keys (key, at) VALUES (?, ?)');
  const forget = db.prepare<[string, string, number], void>(
    'DELETE FROM fired_keys WHERE substr(key, 1, length(?)) = ? AND at < ?',
  );
  const settle = db.transaction((id: string, next: TimerRecord | undefined) => {
    const had = drop.run(id).changes === 1;
    if (next !== undefined) arm.run(timerParams(next));
    return had;
  });
  return {
    arm: (timer) => run('arm a timer', () => void arm.run(timerParams(timer))),
    list: () => run('read timers', () => all.all().map(toTimer)),
    settle: (id, next) => run('settle a timer', () => settle(id, next)),
    cancelOwner: (owner) => run('cancel timers', () => dropOwner.run(owner).changes),
    seen: (key) => run('read fired keys', () => (seen.get(key)?.n ?? 0) > 0),
    remember: (key, at) => run('remember a fired key', () => remember.run(key, at).changes === 1),
    forget: (prefix, before) => run('forget fired keys', () => forget.run(prefix, prefix, before).changes),
  };
}
