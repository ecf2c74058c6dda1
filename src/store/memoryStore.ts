// An in-memory Store with the SQLite store's semantics (tests, embedders that want no disk): values are
// copied in and out through JSON, exactly as the database would round-trip them. Nothing survives close().

import type { BudgetCounter } from '../domain/budget.js';
import type { Conversation } from '../domain/conversation.js';
import type { InboxEvent, InboxOutcome, InboxRecord } from '../domain/inbox.js';
import type { MemoryEntry } from '../domain/memory.js';
import type { TaskFilter, TaskRecord } from '../domain/task.js';
import { compareKeys, isExpired, listLiveKeys, type MemoryListing } from './memoryKeys.js';
import type { Store } from './store.js';
import { selectTasks, taskOfEvent } from './taskQuery.js';

/** A JSON round trip: drops undefined fields and shares nothing with the caller, as storage would. */
function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function compareInbox(a: InboxEvent, b: InboxEvent): number {
  if (a.ts !== b.ts) return a.ts - b.ts;
  return compareKeys(a.id, b.id);
}

/** A Store held in process memory. Its location is ":memory:" and its generation is always 1. */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  readonly location = ':memory:';
  readonly generation = 1;
  readonly #inbox = new Map<string, InboxRecord>();
  readonly #dedupe = new Map<string, string>();
  readonly #conversations = new Map<string, Conversation>();
  readonly #memory = new Map<string, MemoryEntry>();
  readonly #sequences = new Map<string, number>();
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #counters = new Map<string, BudgetCounter>();

  acceptInbox(event: InboxEvent): boolean {
    if (this.#inbox.has(event.id)) return false;
    if (event.dedupe_key !== undefined && this.#dedupe.has(event.dedupe_key)) return false;
    const record: InboxRecord = { ...jsonCopy(event), status: 'pending' };
    this.#inbox.set(event.id, record);
    if (event.dedupe_key !== undefined) this.#dedupe.set(event.dedupe_key, event.id);
    return true;
  }

  markInboxDone(id: string, outcome?: InboxOutcome): void {
    const record = this.#inbox.get(id);
    if (record === undefined) return;
    record.status = 'done';
    if (outcome !== undefined) record.outcome = jsonCopy(outcome);
  }

  completeInbox(id: string, outcome: InboxOutcome, conversations: Conversation[], task?: TaskRecord): void {
    // Copy the task before writing anything so a bad value leaves the store as it was (one transaction).
    const taskCopy = task === undefined ? undefined : jsonCopy(task);
    this.saveConversations(conversations);
    this.markInboxDone(id, outcome);
    if (taskCopy !== undefined) this.#tasks.set(taskCopy.id, taskCopy);
  }

  pendingInbox(): InboxEvent[] {
    const pending: InboxEvent[] = [];
    for (const record of this.#inbox.values()) {
      if (record.status !== 'pending') continue;
      const { status: _status, outcome: _outcome, ...event } = record;
      pending.push(jsonCopy(event));
    }
    return pending.sort(compareInbox);
  }

  findInbox(id: string): InboxRecord | null {
    const record = this.#inbox.get(id);
    return record === undefined ? null : jsonCopy(record);
  }

  findInboxByDedupe(dedupeKey: string): InboxRecord | null {
    const id = this.#dedupe.get(dedupeKey);
    const record = id === undefined ? undefined : this.#inbox.get(id);
    return record === undefined ? null : jsonCopy(record);
  }

  loadConversations(): Conversation[] {
    return [...this.#conversations.values()].sort((a, b) => compareKeys(a.id, b.id)).map(jsonCopy);
  }

  saveConversations(conversations: Conversation[]): void {
    // Copy everything first so a bad value leaves the store as it was (one transaction).
    const copies = conversations.map(jsonCopy);
    for (const conv of copies) this.#conversations.set(conv.id, conv);
  }

  memoryGet(key: string, now: number): MemoryEntry | null {
    const entry = this.#memory.get(key);
    if (entry === undefined) return null;
    if (isExpired(entry.expires, now)) {
      this.#memory.delete(key);
      return null;
    }
    return jsonCopy(entry);
  }

  memorySet(entry: MemoryEntry): void {
    this.#memory.set(entry.key, jsonCopy({ ...entry, value: entry.value ?? null }));
  }

  memoryList(prefix: string, limit: number, now: number): MemoryListing {
    const sorted = [...this.#memory.values()].sort((a, b) => compareKeys(a.key, b.key));
    return listLiveKeys(sorted, prefix, limit, now);
  }

  memoryDelete(key: string): boolean {
    return this.#memory.delete(key);
  }

  saveTask(task: TaskRecord): void {
    this.#tasks.set(task.id, jsonCopy(task));
  }

  getTask(id: string): TaskRecord | null {
    const task = this.#tasks.get(id);
    return task === undefined ? null : jsonCopy(task);
  }

  listTasks(filter: TaskFilter): TaskRecord[] {
    return selectTasks(this.#tasks.values(), filter).map(jsonCopy);
  }

  taskForEvent(eventId: string): TaskRecord | null {
    const task = taskOfEvent(this.#tasks.values(), eventId);
    return task === null ? null : jsonCopy(task);
  }

  loadBudgetCounters(): BudgetCounter[] {
    return [...this.#counters.values()].map(jsonCopy);
  }

  saveBudgetCounters(counters: BudgetCounter[]): void {
    for (const c of counters) this.#counters.set(`${c.scope}\n${c.window}`, jsonCopy(c));
  }

  nextSequence(name: string): number {
    const next = (this.#sequences.get(name) ?? 0) + 1;
    this.#sequences.set(name, next);
    return next;
  }

  close(): void {
    // Nothing to release: the data lives and dies with this object.
  }
}
