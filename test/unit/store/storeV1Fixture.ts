// A store written by schema version 1 (before tasks), frozen: produced by that release's SqliteStore and dumped
// as SQL, so every later version must open it. Rebuild it in a store directory with writeStoreV1.
import path from 'node:path';
import Database from 'better-sqlite3';

/** The pending event the v1 store still holds. */
export const V1_PENDING_ID = '01JV1PENDING0000000000000A';
/** The answered event, with its conversation `ctx-v1`. */
export const V1_DONE_ID = '01JV1DONE00000000000000000';

export const STORE_V1_SQL = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE inbox (
  id         TEXT PRIMARY KEY,
  kind       TEXT NOT NULL,
  ts         INTEGER NOT NULL,
  principal  TEXT,
  payload    TEXT NOT NULL,
  dedupe_key TEXT UNIQUE,
  status     TEXT NOT NULL CHECK (status IN ('pending', 'done')),
  outcome    TEXT
);
CREATE INDEX inbox_pending ON inbox (ts, id) WHERE status = 'pending';
CREATE TABLE conversations (
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
CREATE TABLE messages (
  conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  idx             INTEGER NOT NULL,
  json            TEXT NOT NULL,
  PRIMARY KEY (conversation_id, idx)
) WITHOUT ROWID;
CREATE TABLE memory (
  key     TEXT PRIMARY KEY,
  value   TEXT NOT NULL,
  expires INTEGER,
  updated INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE sequences (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('generation', 1);
INSERT INTO meta (key, value) VALUES ('schema_version', 1);
INSERT INTO inbox (id, kind, ts, principal, payload, dedupe_key, status, outcome) VALUES ('01JV1PENDING0000000000000A', 'a2a_message', 1700000000000, 'alice', '{"context_id":"ctx-v1","text":"still pending","msg_depth":0}', 'startup', 'pending', NULL);
INSERT INTO inbox (id, kind, ts, principal, payload, dedupe_key, status, outcome) VALUES ('01JV1DONE00000000000000000', 'a2a_message', 1699999999000, 'alice', '{"context_id":"ctx-v1","text":"answered"}', NULL, 'done', '{"status":"completed","reply":"hi"}');
INSERT INTO conversations (id, kind, version, summary, plan, principal, turns, created, updated, message_count) VALUES ('ctx-v1', 'conversation', 1, NULL, NULL, 'alice', 1, 100, 200, 2);
INSERT INTO messages (conversation_id, idx, json) VALUES ('ctx-v1', 0, '{"role":"user","text":"answered","ts":1}');
INSERT INTO messages (conversation_id, idx, json) VALUES ('ctx-v1', 1, '{"role":"assistant","text":"hi","tool_calls":[],"ts":2}');
INSERT INTO memory (key, value, expires, updated) VALUES ('k', '{"a":1}', NULL, 5);
INSERT INTO sequences (name, value) VALUES ('turn', 1);
`;

/** Writes the frozen v1 database as `<dir>/agentd.db` (the directory must exist). */
export function writeStoreV1(dir: string): void {
  const db = new Database(path.join(dir, 'agentd.db'));
  db.exec(STORE_V1_SQL);
  db.close();
}
