// The SQLite store's workflow port: runs and runtime-created definitions as JSON records (schema version 6).
import { type StoredDefinition, TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import type { Statements } from './sqliteStatements.js';
import type { WorkflowsPort } from './store.js';

type Run = <T>(doing: string, op: () => T) => Promise<T>;

function runRow(run: WorkflowRun) {
  return {
    id: run.id,
    start_key: run.startKey,
    live: TERMINAL_RUN.has(run.status) ? 0 : 1,
    created: run.created,
    json: JSON.stringify(run),
  };
}

/** The port over prepared statements; `run` maps a thrown SQLite error to the store's failure. */
export function sqliteWorkflowsPort(sql: Statements, run: Run): WorkflowsPort {
  const parse = (row: { json: string }) => JSON.parse(row.json) as WorkflowRun;
  return {
    createRun: (record) =>
      run('create a workflow run', () => {
        if (sql.insertRun.run(runRow(record)).changes === 1) return { run: record, created: true };
        const stored = sql.runByIdOrKey.get({ id: record.id, key: record.startKey });
        return { run: stored ? parse(stored) : record, created: false };
      }),
    saveRun: (record) => run('save a workflow run', () => void sql.saveRun.run(runRow(record))),
    getRun: (id) =>
      run('read a workflow run', () => {
        const row = sql.runByIdOrKey.get({ id, key: `\u0000${id}` });
        return row ? parse(row) : null;
      }),
    listRuns: (filter) => run('list workflow runs', () => (filter.live ? sql.liveRuns : sql.allRuns).all().map(parse)),
    deleteRuns: (ids) => run('delete workflow runs', () => ids.reduce((n, id) => n + sql.deleteRun.run(id).changes, 0)),
    saveDefinition: (def) =>
      run('save a workflow definition', () => {
        sql.saveDefinition.run({
          name: def.name,
          version: def.version,
          created: def.created,
          json: JSON.stringify(def),
        });
      }),
    listDefinitions: () =>
      run('read workflow definitions', () =>
        sql.newestDefinitions.all().map((row) => JSON.parse(row.json) as StoredDefinition),
      ),
  };
}
