// What the durable inbox receives: an accepted message as an `a2a_message` event (reference §2.2, §3.2).
import type { InboxEvent } from '../domain/inbox.js';
import { newUlid } from '../store/ulid.js';

/** A message to accept into the durable inbox. */
export interface AcceptInput {
  context_id: string;
  text: string;
  principal: string | null;
  dedupe_key?: string;
  /** Hop depth: 0 for a person's message, the sender's depth + 1 for message.send. */
  msg_depth?: number;
  /** The A2A task this message answers. */
  task?: { id: string; context_id: string };
  /** The sending conversation, for a message.send delivery. */
  from?: string;
  /** `goal`: a continuation of the conversation's goal. */
  origin?: 'goal';
  /** The goal a continuation serves (its `created` stamp). */
  goal_created?: number;
}

/** The inbox event for `input`, accepted at `now`; `mode` is the conversation's mode at this request boundary. */
export function inboxEvent(input: AcceptInput, now: number, mode: 'plan' | 'execute'): InboxEvent {
  const payload = {
    context_id: input.context_id,
    text: input.text,
    ...(input.msg_depth ? { msg_depth: input.msg_depth } : {}),
    ...(input.task ? { task: input.task } : {}),
    ...(input.from ? { from: input.from } : {}),
    ...(input.origin ? { origin: input.origin } : {}),
    ...(input.goal_created !== undefined ? { goal_created: input.goal_created } : {}),
    ...(mode === 'plan' ? { mode } : {}),
  };
  const event: InboxEvent = { id: newUlid(now), kind: 'a2a_message', ts: now, principal: input.principal, payload };
  if (input.dedupe_key !== undefined) event.dedupe_key = input.dedupe_key;
  return event;
}
