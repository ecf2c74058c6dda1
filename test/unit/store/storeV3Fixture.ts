// A store written by schema version 3 (tasks, controls, budget counters, skills; dedupe keys unscoped, no
// revisions, no leases), frozen as the v3 DDL and rows, so every later version must open it.
import path from 'node:path';
import Database from 'better-sqlite3';
import { STORE_V1_SQL } from './storeV1Fixture.js';

export const V3_PENDING_ID = '01JV3PENDING0000000000000A';
export const V3_TASK_ID = '01JV3TASK00000000000000000';

const V3_TABLES = `
CREATE TABLE tasks (
  id           TEXT PRIMARY KEY,
  context_id   TEXT NOT NULL,
  conversation TEXT NOT NULL,
  state        TEXT NOT NULL,
  principal    TEXT NOT NULL,
  inbox_event  TEXT,
  updated      INTEGER NOT NULL,
  json         TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX tasks_inbox_event ON tasks (inbox_event) WHERE inbox_event IS NOT NULL;
CREATE INDEX tasks_newest ON tasks (principal, updated DESC, id DESC);
CREATE TABLE conversation_controls (
  id   TEXT PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
  json TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE budget_counters (
  scope    TEXT NOT NULL,
  window   TEXT NOT NULL,
  idx      INTEGER NOT NULL,
  tokens   INTEGER NOT NULL,
  requests INTEGER NOT NULL,
  PRIMARY KEY (scope, window)
) WITHOUT ROWID;
ALTER TABLE conversations ADD COLUMN skills TEXT;
UPDATE meta SET value = 3 WHERE key = 'schema_version';
INSERT INTO inbox (id, kind, ts, principal, payload, dedupe_key, status, outcome) VALUES ('${V3_PENDING_ID}', 'a2a_message', 1700000001000, 'user:bob', '{"context_id":"user:bob/c","text":"sent once","task":{"id":"${V3_TASK_ID}","context_id":"c"}}', 'a2a:m-1', 'pending', NULL);
INSERT INTO tasks (id, context_id, conversation, state, principal, inbox_event, updated, json) VALUES ('${V3_TASK_ID}', 'c', 'user:bob/c', 'working', 'user:bob', '${V3_PENDING_ID}', 300, '{"id":"${V3_TASK_ID}","context_id":"c","conversation":"user:bob/c","state":"working","principal":"user:bob","inbox_event":"${V3_PENDING_ID}","message":null,"result":null,"question":null,"history":[{"state":"working","ts":300}],"created":300,"updated":300}');
INSERT INTO conversation_controls (id, json) VALUES ('ctx-v1', '{"mode":"plan","goal":null,"side_of":null,"proposal":null}');
UPDATE conversations SET skills = '["deploy"]' WHERE id = 'ctx-v1';
INSERT INTO budget_counters (scope, window, idx, tokens, requests) VALUES ('instance', 'lifetime', 0, 4200, 0);
`;

/** Writes the frozen v3 database as `<dir>/agentd.db` (the directory must exist). */
export function writeStoreV3(dir: string): void {
  const db = new Database(path.join(dir, 'agentd.db'));
  db.exec(STORE_V1_SQL);
  db.exec(V3_TABLES);
  db.close();
}
