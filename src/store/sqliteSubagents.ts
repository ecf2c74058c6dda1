// The SQLite store's subagent port: records as JSON by handle (schema 5), a cut result's whole text and the spawn
// log (schema 7). Removing a record removes its stored result in the same transaction; the spawn log stays.
import type Database from 'better-sqlite3';
import type { SubagentRecord } from '../domain/subagent.js';
import type { Statements } from './sqliteStatements.js';
import type { SubagentsPort } from './store.js';

type Run = <T>(doing: string, op: () => T) => Promise<T>;

/** The port over prepared statements; `run` maps a thrown SQLite error to the store's failure. */
export function sqliteSubagentsPort(db: Database.Database, sql: Statements, run: Run): SubagentsPort {
  return {
    save: (record) =>
      run('save a subagent record', () => {
        sql.saveSubagent.run({ handle: record.handle, created: record.created, json: JSON.stringify(record) });
      }),
    saveAll: (records) =>
      run('save subagent records', () =>
        db.transaction(() => {
          for (const r of records)
            sql.saveSubagent.run({ handle: r.handle, created: r.created, json: JSON.stringify(r) });
        })(),
      ),
    list: () =>
      run('read subagent records', () => sql.allSubagents.all().map((row) => JSON.parse(row.json) as SubagentRecord)),
    remove: (handles) =>
      run('prune subagent records', () =>
        db.transaction(() => {
          for (const handle of handles) {
            sql.deleteSubagent.run({ handle });
            sql.deleteSubagentResult.run({ handle });
          }
        })(),
      ),
    saveResult: (handle, result) =>
      run('save a subagent result', () => {
        sql.saveSubagentResult.run({ handle, run: result.run, body: result.body });
      }),
    readResult: (handle) =>
      run('read a subagent result', () => {
        const row = sql.subagentResult.get({ handle });
        return row === undefined ? null : { run: row.run, body: row.body };
      }),
    noteActivity: (handle, at, forgetBefore) =>
      run('note a subagent spawn', () =>
        db.transaction(() => {
          sql.noteSpawn.run({ handle, at });
          sql.forgetSpawns.run({ before: forgetBefore });
        })(),
      ),
    activity: (since) => run('read the subagent spawn log', () => sql.spawnsSince.all({ since })),
  };
}
