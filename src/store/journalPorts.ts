// The tool journal's port in every backend (issue 19 item 3; interfaces reference §4.4): completed tool calls by
// idempotency key, first record wins. Not fenced by a conversation's lease: a call a replica completed happened,
// even when that replica lost the conversation meanwhile, so the new holder must find it rather than repeat it.
import type Database from 'better-sqlite3';
import type { JournalEntry } from '../domain/journal.js';
import type { PgRunner } from './postgresProducerPorts.js';
import type { JournalPort } from './store.js';

/** A journal row as both SQL stores keep it: the answer as JSON text `{result, is_error}`. */
interface JournalRow {
  key: string;
  args_hash: string;
  result: string;
  ts: number | string;
}

function toEntry(row: JournalRow): JournalEntry {
  const answer = JSON.parse(row.result) as { result: unknown; is_error: boolean };
  return {
    key: row.key,
    args_hash: row.args_hash,
    result: answer.result,
    is_error: answer.is_error,
    ts: Number(row.ts),
  };
}

const answerText = (e: JournalEntry): string => JSON.stringify({ result: e.result, is_error: e.is_error });

/** `LIKE` matches `%` and `_` as patterns: a prefix is escaped to match itself. */
const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A key's message: `<prefix>#<inbox id>.<n>` (worker/toolJournal.ts). */
const inboxIdOf = (key: string): string => key.slice(key.lastIndexOf('#') + 1, key.lastIndexOf('.'));

/** `pending` tells whether an inbox event is still pending (its turn may run again). */
export function memoryJournalPort(pending: (inboxId: string) => boolean = () => false): JournalPort {
  const entries = new Map<string, JournalEntry>();
  return {
    async record(entry) {
      if (entries.has(entry.key)) return false;
      entries.set(entry.key, structuredClone(entry));
      return true;
    },
    async list(prefix) {
      const keys = [...entries.keys()].filter((k) => k.startsWith(prefix)).sort();
      return keys.map((k) => structuredClone(entries.get(k) as JournalEntry));
    },
    async prune(before) {
      const gone = [...entries.values()].filter((e) => e.ts < before && !pending(inboxIdOf(e.key)));
      for (const e of gone) entries.delete(e.key);
      return gone.length;
    },
  };
}

export function sqliteJournalPort(
  db: Database.Database,
  run: <T>(doing: string, op: () => T) => Promise<T>,
): JournalPort {
  const insert = db.prepare<[string, string, string, number], void>(
    'INSERT INTO tool_journal (key, args_hash, result, ts) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING',
  );
  const byPrefix = db.prepare<[string], JournalRow>(
    `SELECT key, args_hash, result, ts FROM tool_journal WHERE key LIKE ? ESCAPE '\\' ORDER BY key`,
  );
  // A pending message's entries stay, whatever their age: its turn may still run again (an adoption, a restart).
  const prune = db.prepare<[number], void>(
    `DELETE FROM tool_journal WHERE ts < ? AND NOT EXISTS
      (SELECT 1 FROM inbox i WHERE i.status = 'pending' AND instr(tool_journal.key, '#' || i.id || '.') > 0)`,
  );
  return {
    prune: (before) => run('prune the tool journal', () => prune.run(before).changes),
    record: (e) => run('record a tool call', () => insert.run(e.key, e.args_hash, answerText(e), e.ts).changes === 1),
    list: (prefix) => run('read the tool journal', () => byPrefix.all(likePrefix(prefix)).map(toEntry)),
  };
}

export function pgJournalPort(db: PgRunner): JournalPort {
  return {
    prune: (before) =>
      db.read('prune the tool journal', async (q) => {
        const sql = `DELETE FROM tool_journal WHERE ts < $1 AND NOT EXISTS
          (SELECT 1 FROM inbox i WHERE i.status = 'pending' AND strpos(tool_journal.key, '#' || i.id || '.') > 0)`;
        return (await q(sql, [before])).rowCount ?? 0;
      }),
    record: (e) =>
      db.read('record a tool call', async (q) => {
        const sql = `INSERT INTO tool_journal (key, args_hash, result, ts) VALUES ($1, $2, $3, $4)
          ON CONFLICT (key) DO NOTHING`;
        return (await q(sql, [e.key, e.args_hash, answerText(e), e.ts])).rowCount === 1;
      }),
    list: (prefix) =>
      db.read('read the tool journal', async (q) => {
        const sql = `SELECT key, args_hash, result, ts FROM tool_journal WHERE key LIKE $1 ESCAPE '\\' ORDER BY key`;
        return (await q(sql, [likePrefix(prefix)])).rows.map((row) => toEntry(row as JournalRow));
      }),
  };
}
