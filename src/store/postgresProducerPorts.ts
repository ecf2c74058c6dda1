// The PostgreSQL store's ports for the producers' records: subagent records, results and spawn log (schemas 1, 4),
// workflow runs and definitions, durable timers and fired keys, the client feed (schema 3). Same semantics as
// sqliteSubagents.ts, sqliteWorkflows.ts, sqliteTimers.ts, sqliteFeed.ts.
import type pg from 'pg';
import type { FeedEntry, FeedEvent } from '../domain/feed.js';
import type { SubagentRecord } from '../domain/subagent.js';
import type { TimerRecord } from '../domain/timer.js';
import type { StoredDefinition, WorkflowRun } from '../domain/workflow.js';
import type { RunLeaseBook } from './postgresRunLeases.js';
import { SQL } from './postgresStatements.js';
import { type FeedRow, toEvent } from './sqliteFeed.js';
import { type TimerRow, timerParams, toTimer } from './sqliteTimers.js';
import type { FeedPort, SubagentsPort, TimersPort, WorkflowsPort } from './store.js';

type Query = (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

/** How a port runs its statements: `read` on any pooled connection, `tx` in one transaction. */
export interface PgRunner {
  read<T>(doing: string, op: (q: Query) => Promise<T>): Promise<T>;
  /** `fence`: the conversations (lease keys) the write is fenced for (postgresLeases.ts). */
  tx<T>(doing: string, op: (q: Query) => Promise<T>, fence?: readonly string[]): Promise<T>;
}

const parseJson = <T>(rows: Array<{ json: string }>): T[] => rows.map((row) => JSON.parse(row.json) as T);

/**
 * Runs each write after the one issued before it has settled. Pooled connections commit in any order, so an
 * unawaited charge (`saveAll`) could otherwise land after the terminal `save` issued later and store the older copy.
 */
export function inIssueOrder(): <T>(op: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (op) => {
    const run = tail.then(op);
    tail = run.catch(() => undefined);
    return run;
  };
}

export function pgSubagentsPort(db: PgRunner): SubagentsPort {
  const ordered = inIssueOrder();
  return {
    // Fenced by the subagent's own lease (replicas): a replica that lost it writes nothing more for it.
    save: (record) =>
      ordered(() =>
        db.tx(
          'save a subagent record',
          async (q) => {
            await q(SQL.saveSubagent, [record.handle, record.created, JSON.stringify(record)]);
          },
          [`subagent:${record.handle}`],
        ),
      ),
    saveAll: (records, spent) =>
      ordered(() => {
        const [spender, ...callers] = records;
        if (spent === undefined || spender === undefined) {
          return db.tx('save subagent records', async (q) => {
            for (const r of records) await q(SQL.saveSubagent, [r.handle, r.created, JSON.stringify(r)]);
          });
        }
        // Fenced by the spender's lease; its callers (maybe run elsewhere) only see their subtree spend grow.
        const tokens = Math.round(spent);
        const saved = [spender.handle, spender.created, JSON.stringify(spender), tokens];
        return db.tx(
          'charge subagent records',
          async (q) => {
            await q(SQL.chargeSubagent, saved);
            for (const r of callers) await q(SQL.addTreeTokens, [r.handle, tokens]);
          },
          [`subagent:${spender.handle}`],
        );
      }),
    list: () =>
      db.read('read subagent records', async (q) => parseJson<SubagentRecord>((await q(SQL.allSubagents)).rows)),
    remove: (handles) =>
      ordered(() =>
        db.tx('prune subagent records', async (q) => {
          await q(SQL.deleteSubagents, [handles]);
          await q(SQL.deleteSubagentResults, [handles]);
        }),
      ),
    // Ordered with remove(), which deletes results: a result saved before a prune cannot land after it.
    saveResult: (handle, result) =>
      ordered(() =>
        db.read('save a subagent result', async (q) => {
          await q(SQL.saveSubagentResult, [handle, result.run, result.body]);
        }),
      ),
    readResult: (handle) =>
      db.read('read a subagent result', async (q) => {
        const [row] = (await q(SQL.subagentResult, [handle])).rows;
        return row ? { run: Number(row.run), body: String(row.body) } : null;
      }),
    noteActivity: (handle, at, forgetBefore) =>
      db.tx('note a subagent spawn', async (q) => {
        await q(SQL.noteSpawn, [handle, at]);
        await q(SQL.forgetSpawns, [forgetBefore]);
      }),
    activity: (since) =>
      db.read('read the subagent spawn log', async (q) =>
        (await q(SQL.spawnsSince, [since])).rows.map((row) => ({ handle: String(row.handle), at: Number(row.at) })),
      ),
  };
}

/** Workflow runs; each live one owned by one replica (`book`), whose saves are fenced by its epoch. */
export function pgWorkflowsPort(db: PgRunner, book: RunLeaseBook): WorkflowsPort {
  return {
    createRun: (record) =>
      db.tx('create a workflow run', async (q) => {
        if (await book.create(q, record)) return { run: record, created: true };
        const [stored] = parseJson<WorkflowRun>((await q(SQL.runByIdOrKey, [record.id, record.startKey])).rows);
        return { run: stored ?? record, created: false };
      }),
    saveRun: (record) => db.read('save a workflow run', (q) => book.save(q, record)),
    claimRuns: () => db.read('claim workflow runs', (q) => book.claim(q)),
    releaseRun: (id) => db.read('release a workflow run', (q) => book.release(q, id)),
    onRunLost: (lost) => {
      book.onLost = lost;
    },
    getRun: (id) =>
      db.read('read a workflow run', async (q) => parseJson<WorkflowRun>((await q(SQL.runById, [id])).rows)[0] ?? null),
    listRuns: (filter) =>
      db.read('list workflow runs', async (q) =>
        parseJson<WorkflowRun>((await q(filter.live ? SQL.liveRuns : SQL.allRuns)).rows),
      ),
    deleteRuns: (ids) =>
      db.read('delete workflow runs', async (q) => (await q(SQL.deleteRuns, [[...ids]])).rowCount ?? 0),
    saveDefinition: (def) =>
      db.read('save a workflow definition', async (q) => {
        await q(SQL.saveDefinition, [def.name, def.version, def.created, JSON.stringify(def)]);
      }),
    listDefinitions: () =>
      db.read('read workflow definitions', async (q) =>
        parseJson<StoredDefinition>((await q(SQL.newestDefinitions)).rows),
      ),
  };
}

const timerValues = (t: TimerRecord) => {
  const p = timerParams(t);
  return [p.id, p.owner, p.kind, p.due, p.payload];
};

export function pgTimersPort(db: PgRunner): TimersPort {
  return {
    arm: (timer) =>
      db.read('arm a timer', async (q) => {
        await q(SQL.armTimer, timerValues(timer));
      }),
    list: () => db.read('read timers', async (q) => ((await q(SQL.allTimers)).rows as TimerRow[]).map(toTimer)),
    settle: (id, next) =>
      db.tx('settle a timer', async (q) => {
        const had = (await q(SQL.dropTimer, [id])).rowCount === 1;
        if (next !== undefined) await q(SQL.armTimer, timerValues(next));
        return had;
      }),
    cancelOwner: (owner) =>
      db.read('cancel timers', async (q) => (await q(SQL.dropOwnerTimers, [owner])).rowCount ?? 0),
    seen: (key) => db.read('read fired keys', async (q) => (await q(SQL.seenKey, [key])).rows.length > 0),
    remember: (key, at) =>
      db.read('remember a fired key', async (q) => (await q(SQL.rememberKey, [key, at])).rowCount === 1),
    forget: (prefix, before) =>
      db.read('forget fired keys', async (q) => (await q(SQL.forgetKeys, [prefix, before])).rowCount ?? 0),
  };
}

/** Appends entries inside the transaction of `q` (a fold's, or the port's own), under the feed's order lock. */
export async function pgAppendFeed(q: Query, entries: readonly FeedEntry[]): Promise<FeedEvent[]> {
  await q(SQL.lockFeed);
  const cols = [
    entries.map((e) => e.ts),
    entries.map((e) => e.kind),
    entries.map((e) => e.audience),
    entries.map((e) => JSON.stringify(e.data)),
  ];
  const rows = (await q(SQL.appendFeed, cols)).rows as FeedRow[];
  return rows.sort((a, b) => a.seq - b.seq).map(toEvent);
}

export function pgFeedPort(db: PgRunner): FeedPort {
  return {
    append: (entries) =>
      entries.length === 0 ? Promise.resolve([]) : db.tx('append to the feed', (q) => pgAppendFeed(q, entries)),
    after: (seq, limit) =>
      db.read('read the feed', async (q) =>
        ((await q(SQL.feedAfter, [seq, Math.max(0, limit)])).rows as FeedRow[]).map(toEvent),
      ),
    bounds: () =>
      db.read('read the feed', async (q) => {
        const row = (await q(SQL.feedBounds)).rows[0] as { oldest: number | null; newest: number } | undefined;
        return { oldest: row?.oldest ?? null, newest: row?.newest ?? 0 };
      }),
    prune: (keep, before) =>
      db.read('prune the feed', async (q) => (await q(SQL.pruneFeed, [Math.max(0, keep), before])).rowCount ?? 0),
  };
}
