// The replicas' Store: every port over one PostgreSQL database shared by N agentd processes (issue 19). Same
// semantics as the SQLite store (the behaviour suite runs on both); writes that touch a conversation pass the
// lease fence (postgresLeases.ts) inside their transaction, so a replica whose lease moved on commits nothing.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import type { InboxEvent } from '../domain/inbox.js';
import type { TaskRecord } from '../domain/task.js';
import { DaemonError, describeError } from '../errors.js';
import { pgJournalPort } from './journalPorts.js';
import { MemoryChanges } from './memoryChanges.js';
import { isExpired, listLiveKeys } from './memoryKeys.js';
import { pgBudgetPort } from './postgresBudget.js';
import { createPool, describeUrl, type PostgresOptions, pgFailure, unreachableError } from './postgresConnect.js';
import { loadConversation, loadConversations, writeOne } from './postgresConversations.js';
import { PgFleet } from './postgresFleet.js';
import { LeaseBook, type LeaseLog } from './postgresLeases.js';
import {
  type PgRunner,
  pgAppendFeed,
  pgFeedPort,
  pgSubagentsPort,
  pgTimersPort,
  pgWorkflowsPort,
} from './postgresProducerPorts.js';
import { RunLeaseBook } from './postgresRunLeases.js';
import { migrate } from './postgresSchema.js';
import { SQL } from './postgresStatements.js';
import { inTransaction, type Query } from './postgresTransaction.js';
import {
  type InboxRow,
  inboxParams,
  type MemoryRow,
  memoryParams,
  taskParams,
  toInboxRecord,
  toMemoryEntry,
  toTask,
} from './sqliteRows.js';
import type {
  BudgetPort,
  ConversationCommit,
  ConversationsPort,
  FeedPort,
  InboxPort,
  JournalPort,
  MemoryPort,
  SequencesPort,
  Store,
  SubagentsPort,
  TasksPort,
  TimersPort,
  WorkflowsPort,
} from './store.js';
import { taskFilterParams, taskLimit } from './taskQuery.js';
import { checkRevision, scopedKey } from './writeRules.js';

/** How a replica opens its store: the connection, its identity among the replicas, its log and clock. */
export interface ReplicaOptions extends PostgresOptions {
  /** This process's part of the lease holder's name; default host:pid:random (a restart adopts after the TTL). */
  replica?: string;
  /** Hears lease.*, store.fenced and store.connection_lost. */
  log?: LeaseLog;
  now?: () => number;
}

const SILENT: LeaseLog = { info: () => {}, warn: () => {} };
/** A run's hold before the first inbox claim tells the lease TTL (the config's default). */
const DEFAULT_LEASE_MS = 15_000;

function defaultReplica(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** A Store over a PostgreSQL database; open it with `PostgresStore.open`. */
export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
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
  readonly fleet: PgFleet;
  readonly #changes = new MemoryChanges();
  #closed = false;

  private constructor(
    readonly pool: pg.Pool,
    readonly location: string,
    readonly generation: number,
    /** This replica's leases: what the inbox claim holds and the fence checks. */
    readonly leases: LeaseBook,
    opts: ReplicaOptions,
  ) {
    const query = (sql: string, params?: unknown[]) => this.pool.query(sql, params);
    this.fleet = new PgFleet({ opts, log: opts.log ?? SILENT, wall: opts.now ?? Date.now, query, leases });
    this.inbox = this.#inboxPort();
    this.conversations = this.#conversationsPort();
    this.tasks = this.#tasksPort();
    this.memory = this.#memoryPort();
    this.sequences = {
      next: (name, count = 1) =>
        this.#read('advance a sequence', async (q) => {
          const { rows } = await q(SQL.nextSequence, [name, Math.max(1, Math.floor(count))]);
          return Number(rows[0].value);
        }),
    };
    const runner: PgRunner = {
      read: (doing, op) => this.#read(doing, op),
      tx: (doing, op, fence = []) => this.#write(doing, fence, op),
    };
    this.budget = pgBudgetPort(runner);
    this.subagents = pgSubagentsPort(runner);
    const runLeaseMs = () => leases.leaseMs || opts.idleInTransactionMs || DEFAULT_LEASE_MS;
    const runs = new RunLeaseBook(leases.replica, opts.log ?? SILENT, runLeaseMs);
    leases.alsoBeat = (q) => runs.renew(q);
    this.workflows = pgWorkflowsPort(runner, runs);
    this.timers = pgTimersPort(runner);
    this.feed = pgFeedPort(runner);
    this.journal = pgJournalPort(runner);
  }

  /**
   * Connects, applies the migrations and bumps the generation. Throws store_unreachable (the host named, no
   * credential) when no connection opens, store_corrupt for a newer schema. `onLost` hears a dropped idle
   * connection (the pool reconnects on the next call).
   */
  static async open(opts: ReplicaOptions): Promise<PostgresStore> {
    const where = describeUrl(opts.url);
    const log = opts.log ?? SILENT;
    const pool = createPool(opts, (err) => log.warn('store.connection_lost', { error: describeError(err) }));
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      await pool.end().catch(() => {});
      throw unreachableError(where, err);
    }
    try {
      const generation = await migrate(client, where);
      client.release();
      const direct = (sql: string, params?: unknown[]) => pool.query(sql, params);
      const leases = new LeaseBook(opts.replica ?? defaultReplica(), log, opts.now ?? Date.now, direct);
      const store = new PostgresStore(pool, where, generation, leases, opts);
      await store.fleet.listen();
      return store;
    } catch (err) {
      // The pool ends only once every client is back.
      client.release();
      await pool.end().catch(() => {});
      throw pgFailure(err, where, 'migrate the schema');
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.fleet.close();
    await this.pool.end();
  }

  #inboxPort(): InboxPort {
    const holder = async (q: Query, event: InboxEvent): Promise<InboxRow | undefined> => {
      const byId = (await q(SQL.inboxById, [event.id])).rows[0] as InboxRow | undefined;
      if (byId !== undefined || event.dedupe_key === undefined) return byId;
      return (await q(SQL.inboxByDedupe, [scopedKey(event.principal, event.dedupe_key)])).rows[0] as InboxRow;
    };
    return {
      accept: (event, task) =>
        this.#write('accept inbox event', [], async (q) => {
          const p = inboxParams(event);
          const inserted = await q(SQL.insertInbox, [p.id, p.kind, p.ts, p.principal, p.payload, p.dedupe_key]);
          if (inserted.rowCount === 1) {
            if (task !== undefined) await saveTask(q, task);
            // A message whose conversation another replica holds (or will claim): its holder hears at once.
            const mine = await this.leases.takeOnAccept(q, event.payload.context_id);
            if (!mine) await this.fleet.notify(q, 'inbox');
            return { record: { ...structuredClone(event), status: 'pending' as const }, created: true };
          }
          const row = await holder(q, event);
          if (row === undefined) throw new Error(`inbox event ${event.id} was refused but nothing holds its key`);
          return { record: toInboxRecord(row), created: false };
        }),
      // The owner is this replica (several share one agent.name); the claim is the lease cycle.
      claim: (owner, leaseMs, now) =>
        this.#write('claim the inbox', [], (q) => this.leases.claim(q, owner, leaseMs, now)),
      complete: (id, fold) =>
        this.#write(
          'complete inbox event',
          fold.conversations.map((c) => c.conversation.id),
          async (q) => {
            const ctx = (await q(SQL.conversationOfEvent, [id])).rows[0]?.conversation;
            // Fenced first, even when the fold carries no transcript: a replica that lost the conversation marks
            // nothing done (and the lease row locks before the inbox row, as in the claim).
            if (typeof ctx === 'string') await this.leases.check(q, [ctx]);
            const revisions = await this.#commitAll(q, fold.conversations);
            await q(SQL.markInboxDone, [id, JSON.stringify(fold.outcome)]);
            if (fold.task !== undefined) await saveTask(q, fold.task);
            if (fold.feed?.length) await pgAppendFeed(q, fold.feed);
            if (typeof ctx === 'string') await this.leases.check(q, [ctx]).then(() => this.leases.releaseIdle(q, ctx));
            return revisions;
          },
        ),
      find: (id) => this.#read('read the inbox', async (q) => one((await q(SQL.inboxById, [id])).rows, toInboxRecord)),
      findByKey: (principal, key) =>
        this.#read('read the inbox', async (q) =>
          one((await q(SQL.inboxByDedupe, [scopedKey(principal, key)])).rows, toInboxRecord),
        ),
    };
  }

  #conversationsPort(): ConversationsPort {
    return {
      load: () => this.#read('load conversations', (q) => loadConversations(q)),
      get: (id) => this.#read('load a conversation', (q) => loadConversation(q, id)),
      heads: () =>
        this.#read('read conversation heads', async (q) =>
          (await q(SQL.conversationHeads)).rows.map(({ active_goal, ...head }) => ({
            id: head.id,
            principal: head.principal,
            revision: head.revision,
            bytes: Number(head.bytes),
            activeGoal: active_goal === true,
          })),
        ),
      commit: (conversation, expectedRevision, stale) =>
        this.#write('save conversations', [conversation.id], async (q) => {
          const [revision] = await this.#commitAll(q, [{ conversation, expectedRevision, stale }]);
          return revision ?? expectedRevision + 1;
        }),
    };
  }

  #tasksPort(): TasksPort {
    return {
      // Any replica may save a task (an answer, a message id consumed); one that lost its conversation may not.
      save: (task) => this.#write('save a task', [task.conversation], (q) => saveTask(q, task), true),
      saveAnswer: (task, read) =>
        this.#write('save an answer', [], async (q) => {
          const p = taskParams(task);
          const asked = read.question?.id ?? null;
          const params = [p.id, p.state, p.inbox_event, p.updated, p.json, read.state, read.updated, asked];
          if ((await q(SQL.answerTask, params)).rowCount === 1) return;
          throw new DaemonError('store_conflict', `task ${task.id} changed since it was read: send it again`, true);
        }),
      get: (id) => this.#read('read a task', async (q) => one((await q(SQL.taskById, [id])).rows, toTask)),
      list: (filter) => {
        const f = taskFilterParams(filter);
        const params = [f.principal, f.context_id, f.state, filter.after?.id ?? null, taskLimit(filter.limit)];
        return this.#read('list tasks', async (q) => (await q(SQL.listTasks, params)).rows.map((r) => toTask(r)));
      },
      count: (filter) => {
        const f = taskFilterParams(filter);
        return this.#read('count tasks', async (q) => {
          const { rows } = await q(SQL.countTasks, [f.principal, f.context_id, f.state]);
          return Number(rows[0]?.n ?? 0);
        });
      },
      forEvent: (eventId) =>
        this.#read('read a task', async (q) => one((await q(SQL.taskForEvent, [eventId])).rows, toTask)),
      latestTurn: (principal) =>
        this.#read('read a task', async (q) => one((await q(SQL.latestTurnTask, [principal])).rows, toTask)),
      prune: (keep, before) =>
        this.#read('prune tasks', async (q) => (await q(SQL.pruneTasks, [Math.max(0, keep), before])).rowCount ?? 0),
    };
  }

  #memoryPort(): MemoryPort {
    const changes = this.#changes;
    return {
      get: (key, now) =>
        this.#read('read memory', async (q) => {
          const row = (await q(SQL.memoryGet, [key])).rows[0] as MemoryRow | undefined;
          if (row === undefined) return null;
          if (isExpired(row.expires, now)) {
            await q(SQL.memoryDeleteExpired, [key, now]);
            return null;
          }
          return toMemoryEntry(row);
        }),
      set: (entry) =>
        this.#read('write memory', async (q) => {
          const p = memoryParams(entry);
          await q(SQL.memorySet, [p.key, p.value, p.expires, p.updated]);
          changes.emit({ key: entry.key, entry: toMemoryEntry(p) });
        }),
      list: (prefix, limit, now) =>
        this.#read('list memory', async (q) =>
          listLiveKeys((await q(SQL.memoryKeysFrom, [prefix])).rows, prefix, limit, now),
        ),
      delete: (key) =>
        this.#read('delete memory', async (q) => {
          const existed = (await q(SQL.memoryDelete, [key])).rowCount === 1;
          if (existed) changes.emit({ key, entry: null });
          return existed;
        }),
      onChange: (listener) => changes.subscribe(listener),
    };
  }

  /** Writes each conversation on top of its expected revision; inside a transaction (a stale one undoes all). */
  async #commitAll(q: Query, list: readonly ConversationCommit[]): Promise<number[]> {
    const revisions: number[] = [];
    for (const { conversation, expectedRevision, stale } of list) {
      // Queued behind a refused commit of the same copy: it builds on a revision never written (issue 19).
      if (stale?.()) throw new DaemonError('store_conflict', `conversation ${conversation.id}: stale copy`);
      const stored = (await q(SQL.storedTranscript, [conversation.id])).rows[0] as
        | { version: number; count: number; revision: number }
        | undefined;
      checkRevision(conversation.id, expectedRevision, stored?.revision ?? 0);
      await writeOne(q, conversation, stored ?? null, expectedRevision + 1);
      revisions.push(expectedRevision + 1);
    }
    return revisions;
  }

  /** One statement on any pooled connection (autocommit). */
  async #read<T>(doing: string, op: (q: Query) => Promise<T>): Promise<T> {
    try {
      return await op((sql, params) => this.pool.query(sql, params));
    } catch (err) {
      throw pgFailure(err, this.location, doing);
    }
  }

  /**
   * `op` in one transaction (run again after a deadlock), fenced for `conversations` before it writes (so lease
   * rows lock before inbox rows, in the claim's order) and again before it commits (a hold may run out meanwhile).
   */
  #write<T>(doing: string, ctxs: readonly string[], op: (q: Query) => Promise<T>, foreignOk = false): Promise<T> {
    return inTransaction(this.pool, this.location, doing, async (q) => {
      if (ctxs.length > 0) await this.leases.check(q, ctxs, foreignOk);
      const result = await op(q);
      if (ctxs.length > 0) await this.leases.check(q, ctxs, foreignOk);
      return result;
    });
  }
}

async function saveTask(q: Query, task: TaskRecord): Promise<void> {
  const p = taskParams(task);
  await q(SQL.saveTask, [p.id, p.context_id, p.conversation, p.state, p.principal, p.inbox_event, p.updated, p.json]);
}

function one<R, T>(rows: R[], map: (row: R) => T): T | null {
  const row = rows[0];
  return row === undefined ? null : map(row);
}
