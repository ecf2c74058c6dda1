// The PostgreSQL store's versioned migrations, applied at open under one advisory lock so replicas starting at
// once migrate once. A database whose schema is newer than this build knows is refused (issue 19 item 1).
// Text keys use the "C" collation: byte order over UTF-8 is the code point order every store lists in.
import type pg from 'pg';
import { DaemonError } from '../errors.js';

/** One step of the layout; applied in order, each in the transaction that records it. */
interface Migration {
  version: number;
  sql: string;
}

/**
 * 1: the SQLite store's schema 5 (inbox with leases, conversations with revisions, messages, controls, memory,
 * sequences, tasks, budget counters, subagents). 2: conversation leases with a fencing epoch, the tool journal
 * and durable cancel requests (reference interfaces §4.4). 3: the SQLite store's schema 6 (workflow runs and
 * definitions, durable timers and fired keys, the client feed). 4: the SQLite store's schema 7 (a cut subagent
 * result's whole text, the subagent spawn log). 5: the fleet's shared budget reservations, its stored operator
 * controls (pause) and cancel requests for workflow runs. 6: workflow run ownership (owner, epoch, hold).
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE inbox (
  id          TEXT COLLATE "C" PRIMARY KEY,
  kind        TEXT NOT NULL,
  ts          BIGINT NOT NULL,
  principal   TEXT,
  payload     TEXT NOT NULL,
  dedupe_key  TEXT COLLATE "C" UNIQUE,
  status      TEXT NOT NULL CHECK (status IN ('pending', 'done')),
  outcome     TEXT,
  owner       TEXT,
  lease_until BIGINT,
  conversation TEXT COLLATE "C" GENERATED ALWAYS AS (payload::jsonb ->> 'context_id') STORED
);
CREATE INDEX inbox_pending ON inbox (ts, id) WHERE status = 'pending';
CREATE INDEX inbox_pending_conversation ON inbox (conversation) WHERE status = 'pending';
CREATE TABLE conversations (
  id            TEXT COLLATE "C" PRIMARY KEY,
  kind          TEXT NOT NULL,
  version       INTEGER NOT NULL,
  summary       TEXT,
  plan          TEXT,
  principal     TEXT,
  turns         INTEGER NOT NULL,
  created       BIGINT NOT NULL,
  updated       BIGINT NOT NULL,
  message_count INTEGER NOT NULL,
  skills        TEXT,
  revision      INTEGER NOT NULL
);
CREATE TABLE messages (
  conversation_id TEXT COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  idx             INTEGER NOT NULL,
  json            TEXT NOT NULL,
  PRIMARY KEY (conversation_id, idx)
);
CREATE TABLE conversation_controls (
  id   TEXT COLLATE "C" PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
  json TEXT NOT NULL
);
CREATE TABLE memory (
  key     TEXT COLLATE "C" PRIMARY KEY,
  value   TEXT NOT NULL,
  expires BIGINT,
  updated BIGINT NOT NULL
);
CREATE TABLE sequences (
  name  TEXT PRIMARY KEY,
  value BIGINT NOT NULL
);
CREATE TABLE tasks (
  id           TEXT COLLATE "C" PRIMARY KEY,
  context_id   TEXT COLLATE "C" NOT NULL,
  conversation TEXT NOT NULL,
  state        TEXT NOT NULL,
  principal    TEXT NOT NULL,
  inbox_event  TEXT,
  updated      BIGINT NOT NULL,
  json         TEXT NOT NULL
);
CREATE INDEX tasks_inbox_event ON tasks (inbox_event) WHERE inbox_event IS NOT NULL;
CREATE INDEX tasks_principal ON tasks (principal, id DESC);
CREATE TABLE budget_counters (
  scope    TEXT NOT NULL,
  "window" TEXT NOT NULL,
  idx      BIGINT NOT NULL,
  tokens   BIGINT NOT NULL,
  requests BIGINT NOT NULL,
  PRIMARY KEY (scope, "window")
);
CREATE TABLE subagents (
  handle  TEXT COLLATE "C" PRIMARY KEY,
  created BIGINT NOT NULL,
  json    TEXT NOT NULL
);`,
  },
  {
    version: 2,
    sql: `
CREATE TABLE conversation_leases (
  conversation_id TEXT COLLATE "C" PRIMARY KEY,
  holder          TEXT,
  epoch           BIGINT NOT NULL,
  lease_until     BIGINT NOT NULL
);
CREATE TABLE tool_journal (
  key       TEXT COLLATE "C" PRIMARY KEY,
  args_hash TEXT NOT NULL,
  result    TEXT NOT NULL,
  ts        BIGINT NOT NULL
);
CREATE TABLE cancel_requests (
  task_id   TEXT COLLATE "C" PRIMARY KEY,
  principal TEXT,
  ts        BIGINT NOT NULL
);`,
  },
  {
    version: 3,
    // feed.seq comes from a sequence: never reused, even once retention deleted every row (a cursor stays valid).
    sql: `
CREATE TABLE workflow_runs (
  id        TEXT COLLATE "C" PRIMARY KEY,
  start_key TEXT COLLATE "C" NOT NULL UNIQUE,
  live      BOOLEAN NOT NULL,
  created   BIGINT NOT NULL,
  json      TEXT NOT NULL
);
CREATE INDEX workflow_runs_live ON workflow_runs (created, id) WHERE live;
CREATE TABLE workflow_definitions (
  name    TEXT COLLATE "C" NOT NULL,
  version INTEGER NOT NULL,
  created BIGINT NOT NULL,
  json    TEXT NOT NULL,
  PRIMARY KEY (name, version)
);
CREATE TABLE timers (
  id      TEXT COLLATE "C" PRIMARY KEY,
  owner   TEXT NOT NULL,
  kind    TEXT NOT NULL,
  due     BIGINT NOT NULL,
  payload TEXT NOT NULL
);
CREATE INDEX timers_owner ON timers (owner);
CREATE TABLE fired_keys (
  key TEXT PRIMARY KEY,
  at  BIGINT NOT NULL
);
CREATE TABLE feed (
  seq      BIGSERIAL PRIMARY KEY,
  ts       BIGINT NOT NULL,
  kind     TEXT NOT NULL,
  audience TEXT,
  data     TEXT NOT NULL
);`,
  },
  {
    version: 4,
    sql: `
CREATE TABLE subagent_results (
  handle TEXT COLLATE "C" PRIMARY KEY,
  run    INTEGER NOT NULL,
  body   TEXT NOT NULL
);
CREATE TABLE subagent_spawns (
  handle TEXT COLLATE "C" PRIMARY KEY,
  at     BIGINT NOT NULL
);`,
  },
  {
    version: 5,
    // until: the database's clock (ms); a reservation its replica stopped renewing no longer counts.
    sql: `
CREATE TABLE budget_reservations (
  id       TEXT COLLATE "C" NOT NULL,
  scope    TEXT NOT NULL,
  "window" TEXT NOT NULL,
  idx      BIGINT NOT NULL,
  tokens   BIGINT NOT NULL,
  until    BIGINT NOT NULL,
  PRIMARY KEY (id, scope, "window")
);
CREATE INDEX budget_reservations_scope ON budget_reservations (scope, "window", idx);
CREATE TABLE fleet_controls (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  ts    BIGINT NOT NULL
);
CREATE TABLE run_cancel_requests (
  run_id TEXT COLLATE "C" PRIMARY KEY,
  reason TEXT NOT NULL,
  ts     BIGINT NOT NULL
);`,
  },
  {
    version: 6,
    // A live run's owner (a replica), its fencing epoch and the owner's hold on it (the database's clock, ms).
    sql: `
ALTER TABLE workflow_runs ADD COLUMN owner TEXT;
ALTER TABLE workflow_runs ADD COLUMN owner_epoch BIGINT NOT NULL DEFAULT 0;
ALTER TABLE workflow_runs ADD COLUMN owner_until BIGINT NOT NULL DEFAULT 0;`,
  },
];

/** The newest layout this build knows. */
export const PG_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** Any fixed 64-bit number: the advisory lock every replica takes while it migrates. */
const MIGRATION_LOCK = 7_305_019;

const META = `CREATE TABLE IF NOT EXISTS agentd_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL)`;

/**
 * Brings the database up to PG_SCHEMA_VERSION and bumps the generation, in one transaction under the
 * migration lock. Throws store_corrupt (exit 2) for a newer schema. Resolves with the new generation.
 */
export async function migrate(client: pg.PoolClient, where: string): Promise<number> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(META);
    const stored = await client.query<{ value: number }>(`SELECT value FROM agentd_meta WHERE key = 'schema_version'`);
    const from = stored.rows[0]?.value ?? 0;
    if (from > PG_SCHEMA_VERSION) {
      throw new DaemonError(
        'store_corrupt',
        `store ${where}: schema version ${from} is newer than this agentd supports (${PG_SCHEMA_VERSION})`,
      );
    }
    for (const step of MIGRATIONS) if (step.version > from) await client.query(step.sql);
    await client.query(
      `INSERT INTO agentd_meta (key, value) VALUES ('schema_version', $1)
       ON CONFLICT (key) DO UPDATE SET value = GREATEST(agentd_meta.value, $1)`,
      [PG_SCHEMA_VERSION],
    );
    const generation = await client.query<{ value: number }>(
      `INSERT INTO agentd_meta (key, value) VALUES ('generation', 1)
       ON CONFLICT (key) DO UPDATE SET value = agentd_meta.value + 1 RETURNING value`,
    );
    await client.query('COMMIT');
    return generation.rows[0]?.value ?? 1;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
