// Row shapes of the SQLite store and their mapping to and from the Store's plain data: the one place that
// knows which columns hold JSON and how absent optional fields are stored (NULL) and read back (omitted).

import type { Conversation, ConversationControls, Summary } from '../domain/conversation.js';
import {
  type InboxEvent,
  type InboxKind,
  type InboxOutcome,
  type InboxRecord,
  readInboxEvent,
} from '../domain/inbox.js';
import type { MemoryEntry } from '../domain/memory.js';
import type { Plan } from '../domain/plan.js';
import type { TaskRecord } from '../domain/task.js';
import type { Msg } from '../protocol/messages.js';
import { scopedKey } from './writeRules.js';

export interface InboxRow {
  id: string;
  kind: string;
  ts: number;
  principal: string | null;
  payload: string;
  dedupe_key: string | null;
  status: string;
  outcome: string | null;
}

export interface ConversationRow {
  id: string;
  kind: string;
  version: number;
  summary: string | null;
  plan: string | null;
  principal: string | null;
  turns: number;
  created: number;
  updated: number;
  message_count: number;
  skills: string | null;
  revision: number;
}

/** A conversation's head as the heads query returns it (active_goal is SQLite's 0 or 1). */
export interface ConversationHeadRow {
  id: string;
  principal: string | null;
  revision: number;
  bytes: number;
  active_goal: number;
}

export interface MessageRow {
  conversation_id: string;
  json: string;
}

/** The task's lookup columns beside the whole record as JSON (the record is read back from `json` alone). */
export interface TaskRow {
  id: string;
  context_id: string;
  conversation: string;
  state: string;
  principal: string;
  inbox_event: string | null;
  updated: number;
  json: string;
}

export interface MemoryRow {
  key: string;
  value: string;
  expires: number | null;
  updated: number;
}

function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** Named parameters for inserting an inbox event as pending. */
export function inboxParams(event: InboxEvent): InboxRow {
  return {
    id: event.id,
    kind: event.kind,
    ts: event.ts,
    principal: event.principal,
    payload: JSON.stringify(event.payload),
    dedupe_key: event.dedupe_key === undefined ? null : scopedKey(event.principal, event.dedupe_key),
    status: 'pending',
    outcome: null,
  };
}

export function toInboxEvent(row: InboxRow): InboxEvent {
  const event = {
    id: row.id,
    kind: row.kind as InboxKind,
    ts: row.ts,
    principal: row.principal,
    payload: JSON.parse(row.payload) as InboxEvent['payload'],
  } as InboxEvent;
  // Stored scoped to the principal (writeRules.scopedKey); the event carries the caller's own key.
  if (row.dedupe_key !== null) event.dedupe_key = row.dedupe_key.slice(row.dedupe_key.indexOf('\n') + 1);
  return readInboxEvent(event);
}

export function toInboxRecord(row: InboxRow): InboxRecord {
  const record: InboxRecord = { ...toInboxEvent(row), status: row.status === 'done' ? 'done' : 'pending' };
  if (row.outcome !== null) record.outcome = JSON.parse(row.outcome) as InboxOutcome;
  return record;
}

/** Named parameters for the conversation row (everything but the messages) at commit `revision`. */
export function conversationParams(conv: Conversation, revision: number): ConversationRow {
  return {
    revision,
    id: conv.id,
    kind: conv.kind,
    version: conv.version,
    summary: jsonOrNull(conv.summary),
    plan: jsonOrNull(conv.plan),
    principal: conv.principal,
    turns: conv.turns,
    created: conv.created,
    updated: conv.updated,
    message_count: conv.messages.length,
    skills: conv.skills && conv.skills.length > 0 ? JSON.stringify(conv.skills) : null,
  };
}

/** Stored conversations from their rows, every message row (ordered by conversation, then index) and controls. */
export function toStoredConversations(
  rows: Iterable<ConversationRow>,
  messages: Iterable<MessageRow>,
  controls: Iterable<{ id: string; json: string }>,
): Array<{ conversation: Conversation; revision: number }> {
  const byId = new Map<string, string[]>();
  for (const row of messages) {
    const list = byId.get(row.conversation_id);
    if (list === undefined) byId.set(row.conversation_id, [row.json]);
    else list.push(row.json);
  }
  const controlsOf = new Map([...controls].map((row) => [row.id, row.json]));
  return [...rows].map((row) => toStoredConversation(row, byId.get(row.id) ?? [], controlsOf.get(row.id)));
}

/** One stored conversation from its row, its messages' JSON in order and its controls' JSON (if any). */
export function toStoredConversation(
  row: ConversationRow,
  messages: readonly string[],
  controls: string | undefined,
): { conversation: Conversation; revision: number } {
  const conversation = toConversation(
    row,
    messages.map((json) => JSON.parse(json) as Msg),
  );
  if (controls !== undefined) conversation.controls = JSON.parse(controls) as ConversationControls;
  return { conversation, revision: row.revision };
}

export function toConversation(row: ConversationRow, messages: Msg[]): Conversation {
  const conv: Conversation = {
    id: row.id,
    kind: row.kind === 'root' ? 'root' : 'conversation',
    version: row.version,
    summary: row.summary === null ? null : (JSON.parse(row.summary) as Summary),
    messages,
    plan: row.plan === null ? null : (JSON.parse(row.plan) as Plan),
    principal: row.principal,
    turns: row.turns,
    created: row.created,
    updated: row.updated,
  };
  if (row.skills !== null) conv.skills = JSON.parse(row.skills) as string[];
  return conv;
}

export function memoryParams(entry: MemoryEntry): MemoryRow {
  return {
    key: entry.key,
    value: JSON.stringify(entry.value ?? null),
    expires: entry.expires,
    updated: entry.updated,
  };
}

export function toMemoryEntry(row: MemoryRow): MemoryEntry {
  return { key: row.key, value: JSON.parse(row.value) as unknown, expires: row.expires, updated: row.updated };
}

export function taskParams(task: TaskRecord): TaskRow {
  return {
    id: task.id,
    context_id: task.context_id,
    conversation: task.conversation,
    state: task.state,
    principal: task.principal,
    inbox_event: task.inbox_event,
    updated: task.updated,
    json: JSON.stringify(task),
  };
}

export function toTask(row: Pick<TaskRow, 'json'>): TaskRecord {
  return JSON.parse(row.json) as TaskRecord;
}
