// The SQLite store's tables, its schema version, and the manifest's generation bump at open.
// Runs inside the opener's exclusive lock; refuses a database that is not (or is a newer) agentd store.
import type Database from 'better-sqlite3';

/**
 * Bump when the layout changes; a newer version on disk is refused rather than guessed at. 1: inbox,
 * conversations, messages, memory, sequences. 2: adds tasks. 3: adds conversation_controls (mode, goal, side
 * task), budget_counters and conversations.skills (the names of loaded skills, JSON; NULL = none). 4: inbox leases
 * (owner, lease_until), dedupe keys scoped to their principal, conversations.revision (the commit check). 5: adds
 * subagents (one JSON record per handle). 6: adds workflow_runs and workflow_definitions, timers and fired_keys
 * (durable timers and the keys of firings made), and feed (the client feed's events). 7: adds subagent_results
 * (a cut result's whole text), subagent_spawns (the spawn log `limits.subagents.total` counts) and tool_journal
 * (completed tool calls by idempotency key, issue 19). An older store gains what is missing at open.
 */
export const SCHEMA_VERSION = 7;

/** Version 1's tables, exactly as released (test/unit/store/storeV1Fixture.ts freezes a v1 file). */
const TABLES_V1 = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS inbox (
  id         TEXT PRIMARY KEY,
  kind       TEXT NOT NULL,
  ts         INTEGER NOT NULL,
  principal  TEXT,
  payload    TEXT NOT NULL,
  dedupe_key TEXT UNIQUE,
  status     TEXT NOT NULL CHECK (status IN ('pending', 'done')),
  outcome    TEXT
);
CREATE INDEX IF NOT EXISTS inbox_pending ON inbox (ts, id) WHERE status = 'pending';
CREATE TABLE IF NOT EXISTS conversations (
  id            TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,
  version       INTEGER NOT NULL,
  summary       TEXT,
  plan          TEXT,
  principal     TEXT,
  turns         INTEGER NOT NULL,
  created       INTEGER NOT NULL,
  updated       INTEGER NOT NULL,
  message_count INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (
  conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  idx             INTEGER NOT NULL,
  json            TEXT NOT NULL,
  PRIMARY KEY (conversation_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memory (
  key     TEXT PRIMARY KEY,
  value   TEXT NOT NULL,
  expires INTEGER,
  updated INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sequences (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Version 2: durable A2A tasks. The columns index lookups; `json` holds the whole record. */
const TABLES_V2 = `
CREATE TABLE IF NOT EXISTS tasks (
  id           TEXT PRIMARY KEY,
  context_id   TEXT NOT NULL,
  conversation TEXT NOT NULL,
  state        TEXT NOT NULL,
  principal    TEXT NOT NULL,
  inbox_event  TEXT,
  updated      INTEGER NOT NULL,
  json         TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tasks_inbox_event ON tasks (inbox_event) WHERE inbox_event IS NOT NULL;
CREATE INDEX IF NOT EXISTS tasks_newest ON tasks (principal, updated DESC, id DESC);
`;

/**
 * Version 3: how callers steer a conversation (plan mode, goals, side tasks), one JSON record per conversation;
 * durable budget window counters, one row per scope and window (`lifetime` holds the lifetime count).
 */
const TABLES_V3 = `
CREATE TABLE IF NOT EXISTS conversation_controls (
  id   TEXT PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
  json TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS budget_counters (
  scope    TEXT NOT NULL,
  window   TEXT NOT NULL,
  idx      INTEGER NOT NULL,
  tokens   INTEGER NOT NULL,
  requests INTEGER NOT NULL,
  PRIMARY KEY (scope, window)
) WITHOUT ROWID;
`;

/** Version 5: subagent records (reference §1.6); `json` holds the whole record, `created` orders the listing. */
const TABLES_V5 = `
CREATE TABLE IF NOT EXISTS subagents (
  handle  TEXT PRIMARY KEY,
  created INTEGER NOT NULL,
  json    TEXT NOT NULL
) WITHOUT ROWID;
`;

/**
 * Version 6: workflow runs (one JSON record per run; `start_key` unique so a replayed start event finds its run),
 * runtime-created workflow definitions (one row per version; a NULL document is a deletion), durable timers
 * (producers reference §3.8) and the keys of firings already made, and the client feed (issue 18; AUTOINCREMENT:
 * a seq is never reused, even after retention deleted every row, so a client's cursor stays meaningful).
 */
const TABLES_V6 = `
CREATE TABLE IF NOT EXISTS workflow_runs (
  id        TEXT PRIMARY KEY,
  start_key TEXT NOT NULL UNIQUE,
  live      INTEGER NOT NULL,
  created   INTEGER NOT NULL,
  json      TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS workflow_runs_live ON workflow_runs (created, id) WHERE live = 1;
CREATE TABLE IF NOT EXISTS workflow_definitions (
  name     TEXT NOT NULL,
  version  INTEGER NOT NULL,
  created  INTEGER NOT NULL,
  json     TEXT NOT NULL,
  PRIMARY KEY (name, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS timers (
  id      TEXT PRIMARY KEY,
  owner   TEXT NOT NULL,
  kind    TEXT NOT NULL,
  due     INTEGER NOT NULL,
  payload TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS timers_owner ON timers (owner);
CREATE TABLE IF NOT EXISTS fired_keys (
  key TEXT PRIMARY KEY,
  at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS feed (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  ts       INTEGER NOT NULL,
  kind     TEXT NOT NULL,
  audience TEXT,
  data     TEXT NOT NULL
);
`;

/**
 * Version 7: a subagent result's whole text when the distilled one was cut (one per handle, the newest; reference
 * §5 item 24), each subagent's last spawn or end (the spawn log; rows outlive their records), and the tool journal
 * (one answer per idempotency key; `result` is `{result, is_error}` as JSON).
 */
const TABLES_V7 = `
CREATE TABLE IF NOT EXISTS subagent_results (
  handle TEXT PRIMARY KEY,
  run    INTEGER NOT NULL,
  body   TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS subagent_spawns (
  handle TEXT PRIMARY KEY,
  at     INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tool_journal (
  key       TEXT PRIMARY KEY,
  args_hash TEXT NOT NULL,
  result    TEXT NOT NULL,
  ts        INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Version 3 also adds conversations.skills. SQLite has no ADD COLUMN IF NOT EXISTS, so the column list is checked. */
function addColumnV3(db: Database.Database): void {
  const columns = db.prepare(`SELECT name FROM pragma_table_info('conversations')`).pluck().all() as string[];
  if (!columns.includes('skills')) db.exec('ALTER TABLE conversations ADD COLUMN skills TEXT');
}

/** Adds `column` to `table` unless present (SQLite has no ADD COLUMN IF NOT EXISTS). */
function addColumn(db: Database.Database, table: string, column: string, ddl: string): void {
  const columns = db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
  if (!columns.includes(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${ddl}`);
}

/**
 * Version 4: inbox leases, and a commit revision per conversation (rows already stored start at 1). A store
 * older than 4 held dedupe keys unscoped; they move into their principal's scope (writeRules.scopedKey) once.
 */
function upgradeV4(db: Database.Database, from: number | null): void {
  addColumn(db, 'inbox', 'owner', 'owner TEXT');
  addColumn(db, 'inbox', 'lease_until', 'lease_until INTEGER');
  addColumn(db, 'conversations', 'revision', 'revision INTEGER NOT NULL DEFAULT 1');
  if (from !== null && from < 4) {
    db.exec(`UPDATE inbox SET dedupe_key = coalesce(principal, '') || char(10) || dedupe_key
             WHERE dedupe_key IS NOT NULL`);
  }
}

/**
 * Creates absent tables, brings an older layout up to SCHEMA_VERSION and bumps the generation, in one write
 * transaction; call after `checkExisting` found the file usable. Returns the new generation.
 * Every step so far only adds tables or columns, so a fresh file and an upgrade run the same statements;
 * a crash mid-open rolls back to the old version, intact.
 */
export function prepareSchema(db: Database.Database): number {
  return db
    .transaction(() => {
      const from = storedVersion(db);
      db.exec(TABLES_V1);
      db.exec(TABLES_V2);
      db.exec(TABLES_V3);
      addColumnV3(db);
      upgradeV4(db, from);
      db.exec(TABLES_V5);
      db.exec(TABLES_V6);
      db.exec(TABLES_V7);
      db.prepare(
        `INSERT INTO meta (key, value) VALUES ('schema_version', @v)
         ON CONFLICT (key) DO UPDATE SET value = max(value, @v)`,
      ).run({ v: SCHEMA_VERSION });
      const row = db
        .prepare(
          `INSERT INTO meta (key, value) VALUES ('generation', 1)
         ON CONFLICT (key) DO UPDATE SET value = value + 1 RETURNING value`,
        )
        .get() as { value: number };
      return row.value;
    })
    .immediate();
}

/** The schema version on disk, or null for a fresh file. */
function storedVersion(db: Database.Database): number | null {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).pluck().all();
  if (tables.length === 0) return null;
  const version = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get();
  return typeof version === 'number' ? version : null;
}

/**
 * Why the file is not a usable agentd database, or null when it is one (or empty). Only reads, so a foreign
 * file is refused before anything (even the switch to WAL) writes to it.
 */
export function checkExisting(db: Database.Database): string | null {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[];
  if (tables.length === 0) return null;
  if (!tables.includes('meta')) return `no meta table (tables: ${tables.slice(0, 5).join(', ')})`;
  const version = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get();
  if (typeof version !== 'number') return 'no schema_version in the meta table';
  if (version > SCHEMA_VERSION) {
    return `schema version ${version} is newer than this agentd supports (${SCHEMA_VERSION})`;
  }
  return null;
}
