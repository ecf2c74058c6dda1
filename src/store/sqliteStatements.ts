// Every SQL statement the SQLite store runs, prepared once per connection (the supervisor's hot path).
// Statements only; mapping rows to Store data lives in sqliteRows.ts.
import type Database from 'better-sqlite3';
import type { BudgetCounter } from '../domain/budget.js';
import type { ConversationHeadRow, ConversationRow, InboxRow, MemoryRow, MessageRow, TaskRow } from './sqliteRows.js';

/** Named parameters of the task listing; null = no filter on that column. */
export interface TaskListParams {
  principal: string | null;
  context_id: string | null;
  state: string | null;
  /** The cursor: tasks whose id sorts below it; null for the first page. */
  after_id: string | null;
  limit: number;
}

const TASK_FILTER = `(@principal IS NULL OR principal = @principal) AND (@context_id IS NULL OR context_id = @context_id)
       AND (@state IS NULL OR state = @state)`;

const INBOX_COLUMNS = 'id, kind, ts, principal, payload, dedupe_key, status, outcome';

/** The prepared statements, named. */
export type Statements = ReturnType<typeof inboxAndConversations> &
  ReturnType<typeof memoryTasksCounters> &
  ReturnType<typeof subagentRecords> &
  ReturnType<typeof workflowRecords>;

/** The part of a prepared statement the store uses, named so the declarations can spell it. */
export interface Statement<P extends unknown[], R> {
  run(...params: P): Database.RunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
}

function prepare<P extends unknown[], R = unknown>(db: Database.Database, sql: string): Statement<P, R> {
  return db.prepare<P, R>(sql);
}

/** Prepares the store's statements on `db` (after the schema exists). */
export function prepareStatements(db: Database.Database): Statements {
  return { ...inboxAndConversations(db), ...memoryTasksCounters(db), ...subagentRecords(db), ...workflowRecords(db) };
}

function subagentRecords(db: Database.Database) {
  return {
    saveSubagent: prepare<[{ handle: string; created: number; json: string }], void>(
      db,
      `INSERT INTO subagents (handle, created, json) VALUES (@handle, @created, @json)
       ON CONFLICT (handle) DO UPDATE SET json = excluded.json`,
    ),
    allSubagents: prepare<[], { json: string }>(db, 'SELECT json FROM subagents ORDER BY created, handle'),
    deleteSubagent: prepare<[{ handle: string }], void>(db, 'DELETE FROM subagents WHERE handle = @handle'),
    saveSubagentResult: prepare<[{ handle: string; run: number; body: string }], void>(
      db,
      `INSERT INTO subagent_results (handle, run, body) VALUES (@handle, @run, @body)
       ON CONFLICT (handle) DO UPDATE SET run = excluded.run, body = excluded.body`,
    ),
    subagentResult: prepare<[{ handle: string }], { run: number; body: string }>(
      db,
      'SELECT run, body FROM subagent_results WHERE handle = @handle',
    ),
    deleteSubagentResult: prepare<[{ handle: string }], void>(
      db,
      'DELETE FROM subagent_results WHERE handle = @handle',
    ),
    noteSpawn: prepare<[{ handle: string; at: number }], void>(
      db,
      `INSERT INTO subagent_spawns (handle, at) VALUES (@handle, @at)
       ON CONFLICT (handle) DO UPDATE SET at = excluded.at`,
    ),
    forgetSpawns: prepare<[{ before: number }], void>(db, 'DELETE FROM subagent_spawns WHERE at < @before'),
    spawnsSince: prepare<[{ since: number }], { handle: string; at: number }>(
      db,
      'SELECT handle, at FROM subagent_spawns WHERE at >= @since ORDER BY handle',
    ),
  };
}

type RunRow = { id: string; start_key: string; live: number; created: number; json: string };

function workflowRecords(db: Database.Database) {
  return {
    insertRun: prepare<[RunRow], void>(
      db,
      `INSERT INTO workflow_runs (id, start_key, live, created, json) VALUES (@id, @start_key, @live, @created, @json)
       ON CONFLICT DO NOTHING`,
    ),
    saveRun: prepare<[RunRow], void>(
      db,
      `INSERT INTO workflow_runs (id, start_key, live, created, json) VALUES (@id, @start_key, @live, @created, @json)
       ON CONFLICT (id) DO UPDATE SET live = excluded.live, json = excluded.json`,
    ),
    runByIdOrKey: prepare<[{ id: string; key: string }], { json: string }>(
      db,
      'SELECT json FROM workflow_runs WHERE id = @id OR start_key = @key LIMIT 1',
    ),
    allRuns: prepare<[], { json: string }>(db, 'SELECT json FROM workflow_runs ORDER BY created, id'),
    liveRuns: prepare<[], { json: string }>(db, 'SELECT json FROM workflow_runs WHERE live = 1 ORDER BY created, id'),
    deleteRun: prepare<[string], void>(db, 'DELETE FROM workflow_runs WHERE id = ? AND live = 0'),
    saveDefinition: prepare<[{ name: string; version: number; created: number; json: string }], void>(
      db,
      'INSERT OR REPLACE INTO workflow_definitions (name, version, created, json) VALUES (@name, @version, @created, @json)',
    ),
    newestDefinitions: prepare<[], { json: string }>(
      db,
      `SELECT json FROM workflow_definitions d WHERE version = (SELECT max(version) FROM workflow_definitions
       WHERE name = d.name) ORDER BY name`,
    ),
  };
}

function inboxAndConversations(db: Database.Database) {
  return {
    insertInbox: prepare<[InboxRow], void>(
      db,
      `INSERT INTO inbox (${INBOX_COLUMNS})
       VALUES (@id, @kind, @ts, @principal, @payload, @dedupe_key, @status, @outcome)
       ON CONFLICT DO NOTHING`,
    ),
    markInboxDone: prepare<[{ id: string; outcome: string | null }], void>(
      db,
      `UPDATE inbox SET status = 'done', outcome = coalesce(@outcome, outcome) WHERE id = @id`,
    ),
    // Pending events with no live lease, or already leased to this owner; the caller sorts (RETURNING has no order).
    claimInbox: prepare<[{ owner: string; until: number; now: number }], InboxRow>(
      db,
      `UPDATE inbox SET owner = @owner, lease_until = @until
       WHERE status = 'pending' AND (owner IS NULL OR owner = @owner OR lease_until IS NULL OR lease_until <= @now)
       RETURNING ${INBOX_COLUMNS}`,
    ),
    inboxByDedupe: prepare<[string], InboxRow>(db, `SELECT ${INBOX_COLUMNS} FROM inbox WHERE dedupe_key = ?`),
    inboxById: prepare<[string], InboxRow>(db, `SELECT ${INBOX_COLUMNS} FROM inbox WHERE id = ?`),

    conversations: prepare<[], ConversationRow>(
      db,
      `SELECT id, kind, version, summary, plan, principal, turns, created, updated, message_count, skills, revision
       FROM conversations ORDER BY id`,
    ),
    conversationById: prepare<[string], ConversationRow>(
      db,
      `SELECT id, kind, version, summary, plan, principal, turns, created, updated, message_count, skills, revision
       FROM conversations WHERE id = ?`,
    ),
    messagesOf: prepare<[string], MessageRow>(
      db,
      'SELECT conversation_id, json FROM messages WHERE conversation_id = ? ORDER BY idx',
    ),
    controlsOf: prepare<[string], { id: string; json: string }>(
      db,
      'SELECT id, json FROM conversation_controls WHERE id = ?',
    ),
    // The byte count reads each message's length only (a BLOB cast counts UTF-8 bytes), nothing is kept.
    conversationHeads: prepare<[], ConversationHeadRow>(
      db,
      `SELECT c.id, c.principal, c.revision,
         coalesce((SELECT sum(length(CAST(m.json AS BLOB))) FROM messages m WHERE m.conversation_id = c.id), 0)
           AS bytes,
         coalesce(json_extract(cc.json, '$.goal.status') = 'active', 0) AS active_goal
       FROM conversations c LEFT JOIN conversation_controls cc ON cc.id = c.id ORDER BY c.id`,
    ),
    allMessages: prepare<[], MessageRow>(
      db,
      'SELECT conversation_id, json FROM messages ORDER BY conversation_id, idx',
    ),
    storedTranscript: prepare<[string], { version: number; count: number; revision: number }>(
      db,
      'SELECT version, message_count AS count, revision FROM conversations WHERE id = ?',
    ),
    upsertConversation: prepare<[ConversationRow], void>(
      db,
      `INSERT INTO conversations
         (id, kind, version, summary, plan, principal, turns, created, updated, message_count, skills, revision)
       VALUES (@id, @kind, @version, @summary, @plan, @principal, @turns, @created, @updated, @message_count,
         @skills, @revision)
       ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, version = excluded.version,
         summary = excluded.summary, plan = excluded.plan, principal = excluded.principal, turns = excluded.turns,
         created = excluded.created, updated = excluded.updated, message_count = excluded.message_count,
         skills = excluded.skills, revision = excluded.revision`,
    ),
    deleteMessages: prepare<[string], void>(db, 'DELETE FROM messages WHERE conversation_id = ?'),
    allControls: prepare<[], { id: string; json: string }>(db, 'SELECT id, json FROM conversation_controls'),
    saveControls: prepare<[string, string], void>(
      db,
      `INSERT INTO conversation_controls (id, json) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json`,
    ),
    insertMessage: prepare<[string, number, string], void>(
      db,
      'INSERT INTO messages (conversation_id, idx, json) VALUES (?, ?, ?)',
    ),
  };
}

function memoryTasksCounters(db: Database.Database) {
  return {
    memoryGet: prepare<[string], MemoryRow>(db, 'SELECT key, value, expires, updated FROM memory WHERE key = ?'),
    memorySet: prepare<[MemoryRow], void>(
      db,
      `INSERT INTO memory (key, value, expires, updated) VALUES (@key, @value, @expires, @updated)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires, updated = excluded.updated`,
    ),
    memoryDelete: prepare<[string], void>(db, 'DELETE FROM memory WHERE key = ?'),
    memoryDeleteExpired: prepare<[string, number], void>(
      db,
      'DELETE FROM memory WHERE key = ? AND expires IS NOT NULL AND expires < ?',
    ),
    // A range scan from the prefix; listLiveKeys stops at the first key past it.
    memoryKeysFrom: prepare<[string], { key: string; expires: number | null }>(
      db,
      'SELECT key, expires FROM memory WHERE key >= ? ORDER BY key',
    ),

    // A terminal task is never overwritten (writeRules.ts keepsTask): the first end wins.
    saveTask: prepare<[TaskRow], void>(
      db,
      `INSERT INTO tasks (id, context_id, conversation, state, principal, inbox_event, updated, json)
       VALUES (@id, @context_id, @conversation, @state, @principal, @inbox_event, @updated, @json)
       ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, conversation = excluded.conversation,
         state = excluded.state, principal = excluded.principal, inbox_event = excluded.inbox_event,
         updated = excluded.updated, json = excluded.json
       WHERE tasks.state NOT IN ('completed', 'failed', 'canceled', 'rejected')`,
    ),
    taskById: prepare<[string], { json: string }>(db, 'SELECT json FROM tasks WHERE id = ?'),
    // The order must match taskQuery.ts's compareListing; NULL parameters mean "any".
    listTasks: prepare<[TaskListParams], { json: string }>(
      db,
      `SELECT json FROM tasks WHERE ${TASK_FILTER}
       AND (@after_id IS NULL OR id < @after_id)
       ORDER BY id DESC LIMIT @limit`,
    ),
    countTasks: prepare<[Omit<TaskListParams, 'after_id' | 'limit'>], { n: number }>(
      db,
      `SELECT COUNT(*) AS n FROM tasks WHERE ${TASK_FILTER}`,
    ),
    latestTurnTask: prepare<[string], { json: string }>(
      db,
      'SELECT json FROM tasks WHERE principal = ? AND inbox_event IS NOT NULL ORDER BY id DESC LIMIT 1',
    ),
    taskForEvent: prepare<[string], { json: string }>(
      db,
      'SELECT json FROM tasks WHERE inbox_event = ? ORDER BY updated DESC, id DESC LIMIT 1',
    ),

    nextSequence: prepare<[{ name: string; step: number }], { value: number }>(
      db,
      `INSERT INTO sequences (name, value) VALUES (@name, @step)
       ON CONFLICT (name) DO UPDATE SET value = value + @step RETURNING value`,
    ),
    budgetCounters: prepare<[], BudgetCounter>(
      db,
      'SELECT scope, window, idx AS "index", tokens, requests FROM budget_counters ORDER BY scope, window',
    ),
    budgetCounter: prepare<[string, string], BudgetCounter>(
      db,
      'SELECT scope, window, idx AS "index", tokens, requests FROM budget_counters WHERE scope = ? AND window = ?',
    ),
    saveBudgetCounter: prepare<[BudgetCounter], void>(
      db,
      `INSERT INTO budget_counters (scope, window, idx, tokens, requests)
       VALUES (@scope, @window, @index, @tokens, @requests)
       ON CONFLICT (scope, window) DO UPDATE SET idx = @index, tokens = @tokens, requests = @requests`,
    ),
  };
}
