// Builders for store test data: inbox events, conversations, messages, tasks. Shared by the store suites.

import type { Conversation } from '../../../src/domain/conversation.js';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import type { TaskRecord } from '../../../src/domain/task.js';
import type { Msg } from '../../../src/protocol/messages.js';
import { newUlid } from '../../../src/store/ulid.js';

export function inboxEvent(over: Partial<InboxEvent> = {}): InboxEvent {
  return {
    id: newUlid(),
    kind: 'a2a_message',
    ts: 1_700_000_000_000,
    principal: 'alice',
    payload: { context_id: 'ctx-1', text: 'hello', msg_depth: 0 },
    ...over,
  } as InboxEvent;
}

export function userMsg(text: string, ts = 1): Msg {
  return { role: 'user', text, ts };
}

/** A small transcript with every message role, so each shape round-trips. */
export function mixedMessages(): Msg[] {
  return [
    { role: 'system', text: 'be brief', ts: 1 },
    { role: 'user', text: 'hi', principal: 'alice', event: 'E1', ts: 2 },
    { role: 'assistant', tool_calls: [{ id: 'c1', name: 'memory.get', arguments: { key: 'k' } }], ts: 3 },
    { role: 'tool', id: 'c1', name: 'memory.get', content: { found: false }, is_error: false, ts: 4 },
    { role: 'assistant', text: 'done', tool_calls: [], ts: 5 },
    { role: 'note', text: 'a note', ts: 6 },
  ];
}

export function conversation(over: Partial<Conversation> = {}): Conversation {
  return {
    id: 'ctx-1',
    kind: 'conversation',
    version: 1,
    summary: null,
    messages: [],
    plan: null,
    principal: 'alice',
    turns: 0,
    created: 100,
    updated: 100,
    ...over,
  };
}

export function taskRecord(over: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: newUlid(),
    context_id: 'ctx-1',
    conversation: 'a2a-1',
    state: 'working',
    principal: 'alice',
    inbox_event: null,
    message: null,
    result: null,
    question: null,
    history: [{ state: 'working', ts: 100 }],
    created: 100,
    updated: 100,
    ...over,
  };
}
