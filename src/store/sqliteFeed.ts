// The client feed's table in the SQLite store (schema 6) and the task retention delete: statements and the port.
import type Database from 'better-sqlite3';
import type { FeedEntry, FeedEvent, FeedKind } from '../domain/feed.js';
import type { FeedPort } from './store.js';

/** A feed event as both SQL stores keep it (data as JSON text). */
export interface FeedRow {
  seq: number;
  ts: number;
  kind: string;
  audience: string | null;
  data: string;
}

const TERMINAL_STATES = `('completed', 'failed', 'canceled', 'rejected')`;

export function toEvent(row: FeedRow): FeedEvent {
  const data = JSON.parse(row.data) as Record<string, unknown>;
  return { seq: row.seq, ts: row.ts, kind: row.kind as FeedKind, audience: row.audience, data };
}

/** Appends entries in one transaction (a savepoint inside another one, such as a fold's). */
export function sqliteFeedAppend(db: Database.Database): (entries: readonly FeedEntry[]) => FeedEvent[] {
  const insert = db.prepare<[{ ts: number; kind: string; audience: string | null; data: string }], FeedRow>(
    'INSERT INTO feed (ts, kind, audience, data) VALUES (@ts, @kind, @audience, @data) RETURNING *',
  );
  return db.transaction((entries: readonly FeedEntry[]) =>
    entries.map((e) => toEvent(insert.get({ ...e, data: JSON.stringify(e.data) }) as FeedRow)),
  );
}

/** The feed port over `db`; `run` wraps each call as the store does (errors named, a Promise back). */
export function sqliteFeedPort(db: Database.Database, run: <T>(doing: string, op: () => T) => Promise<T>): FeedPort {
  const after = db.prepare<[number, number], FeedRow>('SELECT * FROM feed WHERE seq > ? ORDER BY seq LIMIT ?');
  const oldest = db.prepare<[], { seq: number }>('SELECT seq FROM feed ORDER BY seq LIMIT 1');
  const newest = db.prepare<[], { seq: number }>(`SELECT seq FROM sqlite_sequence WHERE name = 'feed'`);
  const prune = db.prepare<[{ keep: number; before: number }], void>(
    `DELETE FROM feed WHERE ts < @before
       OR seq <= (SELECT seq FROM feed ORDER BY seq DESC LIMIT 1 OFFSET @keep)`,
  );
  const append = sqliteFeedAppend(db);
  return {
    append: (entries) => run('append to the feed', () => (entries.length === 0 ? [] : append(entries))),
    after: (seq, limit) => run('read the feed', () => after.all(seq, Math.max(0, limit)).map(toEvent)),
    bounds: () => run('read the feed', () => ({ oldest: oldest.get()?.seq ?? null, newest: newest.get()?.seq ?? 0 })),
    prune: (keep, before) => run('prune the feed', () => prune.run({ keep: Math.max(0, keep), before }).changes),
  };
}

/** Deletes terminal tasks past retention (TasksPort.prune): beyond the newest `keep`, or updated before `before`. */
export function sqliteTaskPrune(db: Database.Database): (keep: number, before: number) => number {
  const del = db.prepare<[{ keep: number; before: number }], void>(
    `DELETE FROM tasks WHERE state IN ${TERMINAL_STATES} AND (updated < @before OR id IN (
       SELECT id FROM tasks WHERE state IN ${TERMINAL_STATES} ORDER BY updated DESC, id DESC LIMIT -1 OFFSET @keep))`,
  );
  return (keep, before) => del.run({ keep: Math.max(0, keep), before }).changes;
}
