// What an accepted message becomes: the inbox event written durably before it is queued (reference §2.2).
// Pure: the input and the clock in, the event out.
import type { InboxEvent } from '../store/store.js';
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
}

/** The `a2a_message` event for `input`, with a fresh ULID. */
export function newInboxEvent(input: AcceptInput, now: number): InboxEvent {
  const payload = {
    context_id: input.context_id,
    text: input.text,
    ...(input.msg_depth ? { msg_depth: input.msg_depth } : {}),
    ...(input.task ? { task: input.task } : {}),
  };
  const event: InboxEvent = { id: newUlid(now), kind: 'a2a_message', ts: now, principal: input.principal, payload };
  if (input.dedupe_key !== undefined) event.dedupe_key = input.dedupe_key;
  return event;
}
