// How a task listing filters, orders and limits (by id descending, an order no update changes): the MemoryStore runs it,
// the SQLite store's query must agree (the shared behaviour suite checks both). Pure: no I/O.

import type { TaskFilter, TaskRecord, TaskState } from '../domain/task.js';
import { compareKeys } from './memoryKeys.js';

/** The number of rows a listing may return: a whole number, never negative (SQL would read -1 as "no limit"). */
export function taskLimit(limit: number): number {
  return Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
}

/** The most recently updated first: `updated` descending, then id descending in SQLite's byte order. */
export function compareTasks(a: TaskRecord, b: TaskRecord): number {
  if (a.updated !== b.updated) return b.updated - a.updated;
  return compareKeys(b.id, a.id);
}

/** The listing's order: id descending in SQLite's byte order (ULIDs grow with time; an id never changes). */
export function compareListing(a: TaskRecord, b: TaskRecord): number {
  return compareKeys(b.id, a.id);
}

/** True when `task` passes the filter's principal (null = any), context, state and cursor. */
export function matchesTask(task: TaskRecord, filter: Omit<TaskFilter, 'limit'>): boolean {
  if (filter.principal !== null && task.principal !== filter.principal) return false;
  if (filter.state !== undefined && task.state !== filter.state) return false;
  if (filter.after !== undefined && compareKeys(task.id, filter.after.id) >= 0) return false;
  return filter.context_id === undefined || task.context_id === filter.context_id;
}

/** The filter's columns as SQL parameters (null = any). */
export function taskFilterParams(filter: Omit<TaskFilter, 'after' | 'limit'>) {
  return { principal: filter.principal, context_id: filter.context_id ?? null, state: filter.state ?? null };
}

/** The listing `filter` selects from `tasks`, in order and limited. */
export function selectTasks(tasks: Iterable<TaskRecord>, filter: TaskFilter): TaskRecord[] {
  const limit = taskLimit(filter.limit);
  if (limit === 0) return [];
  const picked: TaskRecord[] = [];
  for (const task of tasks) if (matchesTask(task, filter)) picked.push(task);
  return picked.sort(compareListing).slice(0, limit);
}

/** The newest task answering `eventId` (a continued task is relinked to its latest event), or null. */
export function taskOfEvent(tasks: Iterable<TaskRecord>, eventId: string): TaskRecord | null {
  let found: TaskRecord | null = null;
  for (const task of tasks) {
    if (task.inbox_event === eventId && (found === null || compareTasks(task, found) < 0)) found = task;
  }
  return found;
}

/** The principal's newest task (by id) that started a turn: one with an inbox event (a command task has none). */
export function latestTurnTask(tasks: Iterable<TaskRecord>, principal: string): TaskRecord | null {
  let found: TaskRecord | null = null;
  for (const task of tasks) {
    if (task.principal !== principal || task.inbox_event === null) continue;
    if (found === null || compareListing(task, found) < 0) found = task;
  }
  return found;
}

const FINAL: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'canceled', 'rejected']);

/**
 * The ids of terminal tasks past retention (issue 18): beyond the newest `keep` terminal ones (by `updated`, then
 * id), or last updated before `before`. Running tasks are never chosen.
 */
export function prunableTasks(tasks: Iterable<TaskRecord>, keep: number, before: number): string[] {
  const terminal = [...tasks].filter((t) => FINAL.has(t.state)).sort(compareTasks);
  return terminal.filter((t, i) => i >= keep || t.updated < before).map((t) => t.id);
}
