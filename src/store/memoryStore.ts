// An in-memory Store with the SQLite store's semantics (tests, embedders that want no disk): values are
// copied in and out through JSON, exactly as the database would round-trip them. Nothing survives close().

import type { BudgetCounter } from '../domain/budget.js';
import type { Conversation } from '../domain/conversation.js';
import type { InboxEvent, InboxRecord } from '../domain/inbox.js';
import type { MemoryEntry } from '../domain/memory.js';
import type { SubagentRecord } from '../domain/subagent.js';
import type { TaskRecord } from '../domain/task.js';
import type { TimerRecord } from '../domain/timer.js';
import { type StoredDefinition, TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import { messageBytes } from './conversationWrite.js';
import { memoryJournalPort } from './journalPorts.js';
import { MemoryChanges } from './memoryChanges.js';
import { memoryFeedPort } from './memoryFeed.js';
import { compareKeys, isExpired, listLiveKeys } from './memoryKeys.js';
import type {
  Accepted,
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
  StoredResult,
  SubagentsPort,
  TasksPort,
  TimersPort,
  WorkflowsPort,
} from './store.js';
import { latestTurnTask, matchesTask, prunableTasks, selectTasks, taskOfEvent } from './taskQuery.js';
import { addCounter, bySubagentAge, checkRevision, compareInbox, keepsTask, scopedKey } from './writeRules.js';

/** A JSON round trip: drops undefined fields and shares nothing with the caller, as storage would. */
function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function eventOf(record: InboxRecord): InboxEvent {
  const { status: _status, outcome: _outcome, ...event } = record;
  return jsonCopy(event);
}

/** Everything a MemoryStore holds; the ports below share it. */
class MemoryData {
  readonly inbox = new Map<string, InboxRecord>();
  readonly leases = new Map<string, { owner: string; until: number }>();
  readonly keys = new Map<string, string>();
  readonly conversations = new Map<string, { conversation: Conversation; revision: number }>();
  readonly memory = new Map<string, MemoryEntry>();
  readonly sequences = new Map<string, number>();
  readonly tasks = new Map<string, TaskRecord>();
  readonly counters = new Map<string, BudgetCounter>();
  readonly subagents = new Map<string, SubagentRecord>();
  readonly subagentResults = new Map<string, StoredResult>();
  readonly spawnActivity = new Map<string, number>();
  readonly runs = new Map<string, WorkflowRun>();
  readonly definitions: StoredDefinition[] = [];
  readonly changes = new MemoryChanges();

  /** Checks every revision first, then writes: a stale one leaves everything as it was (one transaction). */
  commitAll(list: readonly ConversationCommit[]): number[] {
    const copies = list.map((c) => ({ conversation: jsonCopy(c.conversation), expected: c.expectedRevision }));
    for (const { conversation, expected } of copies) {
      checkRevision(conversation.id, expected, this.conversations.get(conversation.id)?.revision ?? 0);
    }
    return copies.map(({ conversation, expected }) => {
      this.conversations.set(conversation.id, { conversation, revision: expected + 1 });
      return expected + 1;
    });
  }
}

function inboxPort(data: MemoryData, feed: FeedPort): InboxPort {
  return {
    async accept(event, task): Promise<Accepted> {
      const key = event.dedupe_key === undefined ? undefined : scopedKey(event.principal, event.dedupe_key);
      const holder =
        data.inbox.get(event.id) ?? (key === undefined ? undefined : data.inbox.get(data.keys.get(key) ?? ''));
      if (holder !== undefined) return { record: jsonCopy(holder), created: false };
      const record: InboxRecord = { ...jsonCopy(event), status: 'pending' };
      const taskCopy = task === undefined ? undefined : jsonCopy(task);
      data.inbox.set(event.id, record);
      if (taskCopy !== undefined) data.tasks.set(taskCopy.id, taskCopy);
      if (key !== undefined) data.keys.set(key, event.id);
      return { record: jsonCopy(record), created: true };
    },
    async claim(owner, leaseMs, now) {
      const claimed: InboxEvent[] = [];
      for (const record of data.inbox.values()) {
        if (record.status !== 'pending') continue;
        const lease = data.leases.get(record.id);
        if (lease !== undefined && lease.owner !== owner && lease.until > now) continue;
        data.leases.set(record.id, { owner, until: now + leaseMs });
        claimed.push(eventOf(record));
      }
      return claimed.sort(compareInbox);
    },
    async complete(eventId, fold: FoldCommit) {
      const task = fold.task === undefined ? undefined : jsonCopy(fold.task);
      const outcome = jsonCopy(fold.outcome);
      const revisions = data.commitAll(fold.conversations);
      const record = data.inbox.get(eventId);
      if (record !== undefined) Object.assign(record, { status: 'done', outcome });
      data.leases.delete(eventId);
      if (task !== undefined && !keepsTask(data.tasks.get(task.id))) data.tasks.set(task.id, task);
      // The memory feed numbers and stores synchronously at the call: with the writes above, one step.
      if (fold.feed?.length) await feed.append(fold.feed);
      return revisions;
    },
    async find(id) {
      const record = data.inbox.get(id);
      return record === undefined ? null : jsonCopy(record);
    },
    async findByKey(principal, dedupeKey) {
      const record = data.inbox.get(data.keys.get(scopedKey(principal, dedupeKey)) ?? '');
      return record === undefined ? null : jsonCopy(record);
    },
  };
}

function conversationsPort(data: MemoryData): ConversationsPort {
  return {
    async load() {
      return [...data.conversations.values()]
        .sort((a, b) => compareKeys(a.conversation.id, b.conversation.id))
        .map((c) => jsonCopy(c));
    },
    async get(id) {
      const stored = data.conversations.get(id);
      return stored === undefined ? null : jsonCopy(stored);
    },
    async heads() {
      return [...data.conversations.values()]
        .sort((a, b) => compareKeys(a.conversation.id, b.conversation.id))
        .map(({ conversation: c, revision }) => ({
          id: c.id,
          principal: c.principal,
          revision,
          bytes: c.messages.reduce((sum, m) => sum + messageBytes(m), 0),
          activeGoal: c.controls?.goal?.status === 'active',
        }));
    },
    async commit(conversation, expectedRevision) {
      const [revision] = data.commitAll([{ conversation, expectedRevision }]);
      return revision ?? expectedRevision + 1;
    },
  };
}

function budgetPort(data: MemoryData): BudgetPort {
  return {
    async load() {
      return [...data.counters.values()].map(jsonCopy);
    },
    async add(deltas) {
      for (const d of deltas) {
        const key = `${d.scope}\n${d.window}`;
        data.counters.set(key, addCounter(data.counters.get(key), jsonCopy(d)));
      }
    },
  };
}

function tasksPort(data: MemoryData): TasksPort {
  return {
    async save(task) {
      if (!keepsTask(data.tasks.get(task.id))) data.tasks.set(task.id, jsonCopy(task));
    },
    async get(id) {
      const task = data.tasks.get(id);
      return task === undefined ? null : jsonCopy(task);
    },
    async list(filter) {
      return selectTasks(data.tasks.values(), filter).map(jsonCopy);
    },
    async count(filter) {
      let n = 0;
      for (const task of data.tasks.values()) if (matchesTask(task, filter)) n += 1;
      return n;
    },
    async forEvent(eventId) {
      const task = taskOfEvent(data.tasks.values(), eventId);
      return task === null ? null : jsonCopy(task);
    },
    async latestTurn(principal) {
      const task = latestTurnTask(data.tasks.values(), principal);
      return task === null ? null : jsonCopy(task);
    },
    async prune(keep, before) {
      const ids = prunableTasks(data.tasks.values(), keep, before);
      for (const id of ids) data.tasks.delete(id);
      return ids.length;
    },
  };
}

function memoryPort(data: MemoryData): MemoryPort {
  return {
    async get(key, now) {
      const entry = data.memory.get(key);
      if (entry === undefined) return null;
      if (isExpired(entry.expires, now)) {
        data.memory.delete(key);
        return null;
      }
      return jsonCopy(entry);
    },
    async set(entry) {
      const stored = jsonCopy({ ...entry, value: entry.value ?? null });
      data.memory.set(entry.key, stored);
      data.changes.emit({ key: entry.key, entry: jsonCopy(stored) });
    },
    async list(prefix, limit, now) {
      const sorted = [...data.memory.values()].sort((a, b) => compareKeys(a.key, b.key));
      return listLiveKeys(sorted, prefix, limit, now);
    },
    async delete(key) {
      const existed = data.memory.delete(key);
      if (existed) data.changes.emit({ key, entry: null });
      return existed;
    },
    onChange: (listener) => data.changes.subscribe(listener),
  };
}

function sequencesPort(data: MemoryData): SequencesPort {
  return {
    async next(name, count = 1) {
      const next = (data.sequences.get(name) ?? 0) + Math.max(1, Math.floor(count));
      data.sequences.set(name, next);
      return next;
    },
  };
}

function subagentsPort(data: MemoryData): SubagentsPort {
  return {
    async save(record) {
      data.subagents.set(record.handle, jsonCopy(record));
    },
    async saveAll(records) {
      for (const record of records) data.subagents.set(record.handle, jsonCopy(record));
    },
    async list() {
      return [...data.subagents.values()].map(jsonCopy).sort(bySubagentAge);
    },
    async remove(handles) {
      for (const handle of handles) {
        data.subagents.delete(handle);
        data.subagentResults.delete(handle);
      }
    },
    async saveResult(handle, result) {
      data.subagentResults.set(handle, { ...result });
    },
    async readResult(handle) {
      const stored = data.subagentResults.get(handle);
      return stored ? { ...stored } : null;
    },
    async noteActivity(handle, at, forgetBefore) {
      data.spawnActivity.set(handle, at);
      for (const [h, when] of data.spawnActivity) if (when < forgetBefore) data.spawnActivity.delete(h);
    },
    async activity(since) {
      return [...data.spawnActivity]
        .filter(([, at]) => at >= since)
        .map(([handle, at]) => ({ handle, at }))
        .sort((a, b) => (a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0));
    },
  };
}

function workflowsPort(data: MemoryData): WorkflowsPort {
  const byCreated = (a: WorkflowRun, b: WorkflowRun) => a.created - b.created || a.id.localeCompare(b.id);
  return {
    async createRun(run) {
      const taken = data.runs.get(run.id) ?? [...data.runs.values()].find((r) => r.startKey === run.startKey);
      if (taken) return { run: jsonCopy(taken), created: false };
      data.runs.set(run.id, jsonCopy(run));
      return { run: jsonCopy(run), created: true };
    },
    async saveRun(run) {
      data.runs.set(run.id, jsonCopy(run));
    },
    async getRun(id) {
      const run = data.runs.get(id);
      return run ? jsonCopy(run) : null;
    },
    async listRuns(filter) {
      const runs = [...data.runs.values()].filter((r) => !filter.live || !TERMINAL_RUN.has(r.status));
      return runs.sort(byCreated).map(jsonCopy);
    },
    async deleteRuns(ids) {
      const gone = ids.filter((id) => TERMINAL_RUN.has(data.runs.get(id)?.status ?? 'running'));
      for (const id of gone) data.runs.delete(id);
      return gone.length;
    },
    async saveDefinition(def) {
      data.definitions.push(jsonCopy(def));
    },
    async listDefinitions() {
      const newest = new Map<string, StoredDefinition>();
      for (const def of data.definitions)
        if ((newest.get(def.name)?.version ?? -1) < def.version) newest.set(def.name, def);
      return [...newest.values()].sort((a, b) => a.name.localeCompare(b.name)).map(jsonCopy);
    },
  };
}

/** Timers and remembered keys in memory (also what a listener without a store keeps its web sessions in). */
export function memoryTimersPort(): TimersPort {
  const timers = new Map<string, TimerRecord>();
  const keys = new Map<string, number>();
  return {
    async arm(timer) {
      timers.set(timer.id, jsonCopy(timer));
    },
    async list() {
      return [...timers.values()].map(jsonCopy).sort((a, b) => a.due - b.due || (a.id < b.id ? -1 : 1));
    },
    async settle(id, next) {
      const had = timers.delete(id);
      if (next !== undefined) timers.set(next.id, jsonCopy(next));
      return had;
    },
    async cancelOwner(owner) {
      const mine = [...timers.values()].filter((t) => t.owner === owner);
      for (const t of mine) timers.delete(t.id);
      return mine.length;
    },
    async seen(key) {
      return keys.has(key);
    },
    async remember(key, at) {
      if (keys.has(key)) return false;
      keys.set(key, at);
      return true;
    },
    async forget(prefix, before) {
      const old = [...keys].filter(([key, at]) => key.startsWith(prefix) && at < before);
      for (const [key] of old) keys.delete(key);
      return old.length;
    },
  };
}

/** A Store held in process memory. Its location is ":memory:" and its generation is always 1. */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  readonly location = ':memory:';
  readonly generation = 1;
  readonly inbox: InboxPort;
  readonly conversations: ConversationsPort;
  readonly budget: BudgetPort;
  readonly tasks: TasksPort;
  readonly memory: MemoryPort;
  readonly sequences: SequencesPort;
  readonly subagents: SubagentsPort;
  readonly workflows: WorkflowsPort;
  readonly timers: TimersPort;
  readonly feed: FeedPort = memoryFeedPort();
  readonly journal: JournalPort;

  constructor() {
    const data = new MemoryData();
    this.journal = memoryJournalPort((id) => data.inbox.get(id)?.status === 'pending');
    this.inbox = inboxPort(data, this.feed);
    this.conversations = conversationsPort(data);
    this.budget = budgetPort(data);
    this.tasks = tasksPort(data);
    this.memory = memoryPort(data);
    this.sequences = sequencesPort(data);
    this.subagents = subagentsPort(data);
    this.workflows = workflowsPort(data);
    this.timers = memoryTimersPort();
  }

  async close(): Promise<void> {
    // Nothing to release: the data lives and dies with this object.
  }
}
