// The embedded default Store: one SQLite file in the store directory, WAL, synchronous=FULL, held exclusively
// by one process for the life of the connection. Transcripts are appended, not rewritten, on each checkpoint.
import type Database from 'better-sqlite3';
import type { BudgetCounter } from '../domain/budget.js';
import type { Conversation, ConversationControls } from '../domain/conversation.js';
import type { InboxEvent, InboxOutcome, InboxRecord } from '../domain/inbox.js';
import type { MemoryEntry } from '../domain/memory.js';
import type { TaskFilter, TaskRecord } from '../domain/task.js';
import type { Msg } from '../protocol/messages.js';
import { planMessageWrite } from './conversationWrite.js';
import { isExpired, listLiveKeys, type MemoryListing } from './memoryKeys.js';
import { storeFailure } from './sqliteErrors.js';
import { openSqliteDatabase, releasePidFile } from './sqliteOpen.js';
import {
  conversationParams,
  inboxParams,
  memoryParams,
  taskParams,
  toConversation,
  toInboxEvent,
  toInboxRecord,
  toMemoryEntry,
  toTask,
} from './sqliteRows.js';
import { prepareStatements, type Statements } from './sqliteStatements.js';
import type { Store } from './store.js';
import { taskLimit } from './taskQuery.js';

/** A Store over `<dir>/agentd.db`. Opening bumps the generation; a second process opening the dir fails fast. */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  readonly generation: number;
  readonly #dir: string;
  readonly #db: Database.Database;
  readonly #sql: Statements;
  readonly #saveAll: (conversations: Conversation[]) => void;
  readonly #saveCounters: (counters: BudgetCounter[]) => void;
  readonly #complete: (id: string, outcome: InboxOutcome, conversations: Conversation[], task?: TaskRecord) => void;
  #closed = false;

  /** Opens (creating if absent) the store in directory `dir`. Throws store_locked, store_corrupt or store_io. */
  constructor(dir: string) {
    const opened = openSqliteDatabase(dir);
    this.#db = opened.db;
    this.#dir = opened.dir;
    this.location = opened.file;
    this.generation = opened.generation;
    this.#sql = prepareStatements(this.#db);
    this.#saveAll = this.#db.transaction((list: Conversation[]) => {
      for (const conv of list) this.#saveOne(conv);
    });
    this.#saveCounters = this.#db.transaction((counters: BudgetCounter[]) => {
      for (const counter of counters) this.#sql.saveBudgetCounter.run(counter);
    });
    this.#complete = this.#db.transaction(
      (id: string, outcome: InboxOutcome, list: Conversation[], task?: TaskRecord) => {
        for (const conv of list) this.#saveOne(conv);
        this.#sql.markInboxDone.run({ id, outcome: JSON.stringify(outcome) });
        if (task !== undefined) this.#sql.saveTask.run(taskParams(task));
      },
    );
  }

  acceptInbox(event: InboxEvent): boolean {
    // Autocommit: one statement is its own transaction, synced (FULL) before run() returns.
    return this.#guard('accept inbox event', () => this.#sql.insertInbox.run(inboxParams(event)).changes === 1);
  }

  markInboxDone(id: string, outcome?: InboxOutcome): void {
    const params = { id, outcome: outcome === undefined ? null : JSON.stringify(outcome) };
    this.#guard('mark inbox event done', () => this.#sql.markInboxDone.run(params));
  }

  completeInbox(id: string, outcome: InboxOutcome, conversations: Conversation[], task?: TaskRecord): void {
    this.#guard('complete inbox event', () => this.#complete(id, outcome, conversations, task));
  }

  pendingInbox(): InboxEvent[] {
    return this.#guard('read the inbox', () => this.#sql.pendingInbox.all().map(toInboxEvent));
  }

  findInbox(id: string): InboxRecord | null {
    const row = this.#guard('read the inbox', () => this.#sql.inboxById.get(id));
    return row === undefined ? null : toInboxRecord(row);
  }

  findInboxByDedupe(dedupeKey: string): InboxRecord | null {
    const row = this.#guard('read the inbox', () => this.#sql.inboxByDedupe.get(dedupeKey));
    return row === undefined ? null : toInboxRecord(row);
  }

  loadConversations(): Conversation[] {
    return this.#guard('load conversations', () => {
      const byId = new Map<string, Msg[]>();
      for (const row of this.#sql.allMessages.iterate()) {
        const msg = JSON.parse(row.json) as Msg;
        const list = byId.get(row.conversation_id);
        if (list === undefined) byId.set(row.conversation_id, [msg]);
        else list.push(msg);
      }
      const controls = new Map(this.#sql.allControls.all().map((row) => [row.id, row.json]));
      return this.#sql.conversations.all().map((row) => {
        const conv = toConversation(row, byId.get(row.id) ?? []);
        const json = controls.get(row.id);
        if (json !== undefined) conv.controls = JSON.parse(json) as ConversationControls;
        return conv;
      });
    });
  }

  saveConversations(conversations: Conversation[]): void {
    if (conversations.length === 0) return;
    this.#guard('save conversations', () => this.#saveAll(conversations));
  }

  memoryGet(key: string, now: number): MemoryEntry | null {
    return this.#guard('read memory', () => {
      const row = this.#sql.memoryGet.get(key);
      if (row === undefined) return null;
      if (isExpired(row.expires, now)) {
        this.#sql.memoryDeleteExpired.run(key, now);
        return null;
      }
      return toMemoryEntry(row);
    });
  }

  memorySet(entry: MemoryEntry): void {
    this.#guard('write memory', () => this.#sql.memorySet.run(memoryParams(entry)));
  }

  memoryList(prefix: string, limit: number, now: number): MemoryListing {
    return this.#guard('list memory', () => listLiveKeys(this.#sql.memoryKeysFrom.iterate(prefix), prefix, limit, now));
  }

  memoryDelete(key: string): boolean {
    return this.#guard('delete memory', () => this.#sql.memoryDelete.run(key).changes === 1);
  }

  saveTask(task: TaskRecord): void {
    // Autocommit, like acceptInbox: synced (FULL) before run() returns.
    this.#guard('save a task', () => this.#sql.saveTask.run(taskParams(task)));
  }

  getTask(id: string): TaskRecord | null {
    const row = this.#guard('read a task', () => this.#sql.taskById.get(id));
    return row === undefined ? null : toTask(row);
  }

  listTasks(filter: TaskFilter): TaskRecord[] {
    const params = {
      principal: filter.principal,
      context_id: filter.context_id ?? null,
      limit: taskLimit(filter.limit),
    };
    return this.#guard('list tasks', () => this.#sql.listTasks.all(params).map(toTask));
  }

  taskForEvent(eventId: string): TaskRecord | null {
    const row = this.#guard('read a task', () => this.#sql.taskForEvent.get(eventId));
    return row === undefined ? null : toTask(row);
  }

  loadBudgetCounters(): BudgetCounter[] {
    return this.#guard('read budget counters', () => this.#sql.budgetCounters.all());
  }

  saveBudgetCounters(counters: BudgetCounter[]): void {
    if (counters.length === 0) return;
    this.#guard('save budget counters', () => this.#saveCounters(counters));
  }

  nextSequence(name: string): number {
    return this.#guard('advance a sequence', () => {
      const row = this.#sql.nextSequence.get(name);
      if (row === undefined) throw new Error(`sequence ${name} returned no row`);
      return row.value;
    });
  }

  /** Closes the connection (checkpointing the WAL) and releases the lock. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
    releasePidFile(this.#dir);
  }

  #saveOne(conv: Conversation): void {
    const write = planMessageWrite(this.#sql.storedTranscript.get(conv.id) ?? null, conv.version, conv.messages.length);
    this.#sql.upsertConversation.run(conversationParams(conv));
    if (conv.controls) this.#sql.saveControls.run(conv.id, JSON.stringify(conv.controls));
    let from = 0;
    if (write.kind === 'rewrite') this.#sql.deleteMessages.run(conv.id);
    else from = write.from;
    for (let idx = from; idx < conv.messages.length; idx++) {
      this.#sql.insertMessage.run(conv.id, idx, JSON.stringify(conv.messages[idx]));
    }
  }

  #guard<T>(doing: string, op: () => T): T {
    try {
      return op();
    } catch (err) {
      throw storeFailure(err, this.location, doing);
    }
  }
}
