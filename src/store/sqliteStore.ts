// The embedded default Store: one SQLite file in the store directory, WAL, synchronous=FULL, held exclusively
// by one process for the life of the connection. Transcripts are appended, not rewritten, on each commit.
// better-sqlite3 is synchronous: each method does its work when called and resolves with the result, so calls
// take effect in call order.
import type Database from 'better-sqlite3';
import type { BudgetCounter } from '../domain/budget.js';
import type { Conversation } from '../domain/conversation.js';
import type { InboxEvent } from '../domain/inbox.js';
import type { TaskRecord } from '../domain/task.js';
import { planMessageWrite } from './conversationWrite.js';
import { sqliteJournalPort } from './journalPorts.js';
import { MemoryChanges } from './memoryChanges.js';
import { isExpired, listLiveKeys } from './memoryKeys.js';
import type { IntegrityCheck, IntegrityChecked } from './sqliteCheck.js';
import { storeFailure } from './sqliteErrors.js';
import { sqliteFeedAppend, sqliteFeedPort, sqliteTaskPrune } from './sqliteFeed.js';
import { openSqliteDatabase, releasePidFile } from './sqliteOpen.js';
import {
  conversationParams,
  inboxParams,
  memoryParams,
  taskParams,
  toInboxEvent,
  toInboxRecord,
  toMemoryEntry,
  toStoredConversation,
  toStoredConversations,
  toTask,
} from './sqliteRows.js';
import { prepareStatements, type Statements } from './sqliteStatements.js';
import { sqliteSubagentsPort } from './sqliteSubagents.js';
import { sqliteTimersPort } from './sqliteTimers.js';
import { sqliteWorkflowsPort } from './sqliteWorkflows.js';
import type {
  BudgetPort,
  ConversationCommit,
  ConversationsPort,
  FeedPort,
  FoldCommit,
  InboxPort,
  JournalPort,
  MemoryPort,
  SequencesPort,
  Store,
  StoredConversation,
  SubagentsPort,
  TasksPort,
  TimersPort,
  WorkflowsPort,
} from './store.js';
import { taskFilterParams, taskLimit } from './taskQuery.js';
import { addCounter, checkRevision, compareInbox, scopedKey } from './writeRules.js';

/** A Store over `<dir>/agentd.db`. Opening bumps the generation; a second process opening the dir fails fast. */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  readonly generation: number;
  readonly checked: IntegrityChecked | null;
  readonly inbox: InboxPort;
  readonly conversations: ConversationsPort;
  readonly budget: BudgetPort;
  readonly tasks: TasksPort;
  readonly memory: MemoryPort;
  readonly sequences: SequencesPort;
  readonly subagents: SubagentsPort;
  readonly workflows: WorkflowsPort;
  readonly timers: TimersPort;
  readonly feed: FeedPort;
  readonly journal: JournalPort;
  readonly #dir: string;
  readonly #db: Database.Database;
  readonly #sql: Statements;
  readonly #changes = new MemoryChanges();
  #closed = false;

  /**
   * Opens (creating if absent) the store in directory `dir`, checking an existing file first (`integrityCheck`,
   * default quick). Throws store_locked, store_corrupt or store_io.
   */
  constructor(dir: string, opts: { integrityCheck?: IntegrityCheck } = {}) {
    const opened = openSqliteDatabase(dir, opts.integrityCheck);
    this.#db = opened.db;
    this.#dir = opened.dir;
    this.location = opened.file;
    this.generation = opened.generation;
    this.checked = opened.checked;
    this.#sql = prepareStatements(this.#db);
    this.inbox = this.#inboxPort();
    this.conversations = this.#conversationsPort();
    this.budget = this.#budgetPort();
    this.tasks = this.#tasksPort();
    this.memory = this.#memoryPort();
    this.feed = sqliteFeedPort(this.#db, (doing, op) => this.#run(doing, op));
    this.journal = sqliteJournalPort(this.#db, (doing, op) => this.#run(doing, op));
    this.subagents = sqliteSubagentsPort(this.#db, this.#sql, (doing, op) => this.#run(doing, op));
    this.workflows = sqliteWorkflowsPort(this.#sql, (doing, op) => this.#run(doing, op));
    this.timers = sqliteTimersPort(this.#db, (doing, op) => this.#run(doing, op));
    this.sequences = {
      next: (name, count = 1) =>
        this.#run('advance a sequence', () => {
          const row = this.#sql.nextSequence.get({ name, step: Math.max(1, Math.floor(count)) });
          if (row === undefined) throw new Error(`sequence ${name} returned no row`);
          return row.value;
        }),
    };
  }

  /** Closes the connection (checkpointing the WAL) and releases the lock. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
    releasePidFile(this.#dir);
  }

  #inboxPort(): InboxPort {
    const sql = this.#sql;
    const appendFeed = sqliteFeedAppend(this.#db);
    const complete = this.#db.transaction((id: string, fold: FoldCommit) => {
      const revisions = this.#commitAll(fold.conversations);
      sql.markInboxDone.run({ id, outcome: JSON.stringify(fold.outcome) });
      if (fold.task !== undefined) sql.saveTask.run(taskParams(fold.task));
      if (fold.feed?.length) appendFeed(fold.feed);
      return revisions;
    });
    const holder = (event: InboxEvent) =>
      sql.inboxById.get(event.id) ??
      (event.dedupe_key === undefined
        ? undefined
        : sql.inboxByDedupe.get(scopedKey(event.principal, event.dedupe_key)));
    // One transaction, synced (FULL) before it returns: the event and the task that follows it, or neither.
    const insert = this.#db.transaction((event: InboxEvent, task: TaskRecord | undefined) => {
      if (sql.insertInbox.run(inboxParams(event)).changes !== 1) return false;
      if (task !== undefined) sql.saveTask.run(taskParams(task));
      return true;
    });
    return {
      accept: (event, task) =>
        this.#run('accept inbox event', () => {
          if (insert(event, task)) {
            return { record: { ...structuredClone(event), status: 'pending' as const }, created: true };
          }
          const row = holder(event);
          if (row === undefined) throw new Error(`inbox event ${event.id} was refused but nothing holds its key`);
          return { record: toInboxRecord(row), created: false };
        }),
      claim: (owner, leaseMs, now) =>
        this.#run('claim the inbox', () =>
          sql.claimInbox
            .all({ owner, until: now + leaseMs, now })
            .map(toInboxEvent)
            .sort(compareInbox),
        ),
      complete: (id, fold) => this.#run('complete inbox event', () => complete(id, fold)),
      find: (id) => this.#run('read the inbox', () => nullable(sql.inboxById.get(id), toInboxRecord)),
      findByKey: (principal, key) =>
        this.#run('read the inbox', () => nullable(sql.inboxByDedupe.get(scopedKey(principal, key)), toInboxRecord)),
    };
  }

  #conversationsPort(): ConversationsPort {
    const commit = this.#db.transaction((list: ConversationCommit[]) => this.#commitAll(list));
    return {
      load: () => this.#run('load conversations', () => this.#loadConversations()),
      get: (id) => this.#run('load a conversation', () => this.#loadConversation(id)),
      heads: () =>
        this.#run('read conversation heads', () =>
          this.#sql.conversationHeads
            .all()
            .map(({ active_goal, ...head }) => ({ ...head, activeGoal: active_goal === 1 })),
        ),
      commit: (conversation, expectedRevision) =>
        this.#run('save conversations', () => commit([{ conversation, expectedRevision }])[0] ?? expectedRevision + 1),
    };
  }

  #budgetPort(): BudgetPort {
    const sql = this.#sql;
    const add = this.#db.transaction((deltas: BudgetCounter[]) => {
      for (const d of deltas) sql.saveBudgetCounter.run(addCounter(sql.budgetCounter.get(d.scope, d.window), d));
    });
    return {
      load: () => this.#run('read budget counters', () => sql.budgetCounters.all()),
      add: (deltas) => this.#run('add to budget counters', () => (deltas.length === 0 ? undefined : add(deltas))),
    };
  }

  #tasksPort(): TasksPort {
    const sql = this.#sql;
    const prune = sqliteTaskPrune(this.#db);
    return {
      prune: (keep, before) => this.#run('prune tasks', () => prune(keep, before)),
      save: (task) => this.#run('save a task', () => void sql.saveTask.run(taskParams(task))),
      get: (id) => this.#run('read a task', () => nullable(sql.taskById.get(id), toTask)),
      list: (filter) => {
        const params = {
          ...taskFilterParams(filter),
          after_id: filter.after?.id ?? null,
          limit: taskLimit(filter.limit),
        };
        return this.#run('list tasks', () => sql.listTasks.all(params).map(toTask));
      },
      count: (filter) => this.#run('count tasks', () => sql.countTasks.get(taskFilterParams(filter))?.n ?? 0),
      forEvent: (eventId) => this.#run('read a task', () => nullable(sql.taskForEvent.get(eventId), toTask)),
      latestTurn: (principal) => this.#run('read a task', () => nullable(sql.latestTurnTask.get(principal), toTask)),
    };
  }

  #memoryPort(): MemoryPort {
    const sql = this.#sql;
    const changes = this.#changes;
    return {
      get: (key, now) =>
        this.#run('read memory', () => {
          const row = sql.memoryGet.get(key);
          if (row === undefined) return null;
          if (isExpired(row.expires, now)) {
            sql.memoryDeleteExpired.run(key, now);
            return null;
          }
          return toMemoryEntry(row);
        }),
      set: (entry) =>
        this.#run('write memory', () => {
          const params = memoryParams(entry);
          sql.memorySet.run(params);
          changes.emit({ key: entry.key, entry: toMemoryEntry(params) });
        }),
      list: (prefix, limit, now) =>
        this.#run('list memory', () => listLiveKeys(sql.memoryKeysFrom.iterate(prefix), prefix, limit, now)),
      delete: (key) =>
        this.#run('delete memory', () => {
          const existed = sql.memoryDelete.run(key).changes === 1;
          if (existed) changes.emit({ key, entry: null });
          return existed;
        }),
      onChange: (listener) => changes.subscribe(listener),
    };
  }

  #loadConversations(): StoredConversation[] {
    const sql = this.#sql;
    return toStoredConversations(sql.conversations.all(), sql.allMessages.iterate(), sql.allControls.all());
  }

  #loadConversation(id: string): StoredConversation | null {
    const row = this.#sql.conversationById.get(id);
    if (row === undefined) return null;
    const messages = this.#sql.messagesOf.all(id).map((m) => m.json);
    return toStoredConversation(row, messages, this.#sql.controlsOf.get(id)?.json);
  }

  /** Writes each conversation on top of its expected revision; call inside a transaction (a stale one undoes all). */
  #commitAll(list: readonly ConversationCommit[]): number[] {
    return list.map(({ conversation, expectedRevision }) => {
      const stored = this.#sql.storedTranscript.get(conversation.id) ?? null;
      checkRevision(conversation.id, expectedRevision, stored?.revision ?? 0);
      this.#writeOne(conversation, stored, expectedRevision + 1);
      return expectedRevision + 1;
    });
  }

  #writeOne(conv: Conversation, stored: { version: number; count: number } | null, revision: number): void {
    const write = planMessageWrite(stored, conv.version, conv.messages.length);
    this.#sql.upsertConversation.run(conversationParams(conv, revision));
    if (conv.controls) this.#sql.saveControls.run(conv.id, JSON.stringify(conv.controls));
    let from = 0;
    if (write.kind === 'rewrite') this.#sql.deleteMessages.run(conv.id);
    else from = write.from;
    for (let idx = from; idx < conv.messages.length; idx++) {
      this.#sql.insertMessage.run(conv.id, idx, JSON.stringify(conv.messages[idx]));
    }
  }

  /** Runs `op` now and settles with its result; a SQLite failure becomes a DaemonError naming the store. */
  #run<T>(doing: string, op: () => T): Promise<T> {
    try {
      return Promise.resolve(op());
    } catch (err) {
      return Promise.reject(storeFailure(err, this.location, doing));
    }
  }
}

function nullable<R, T>(row: R | undefined, map: (row: R) => T): T | null {
  return row === undefined ? null : map(row);
}
