// What the durable inbox receives: one producer's input, stamped into an inbox event of that producer's kind
// (reference §2.2, §3.2). Kind-specific fields travel in the payload; nothing here reads or writes the store.
import type { InboxEvent, MessagePayload } from '../domain/inbox.js';
import { newUlid } from '../store/ulid.js';

interface AcceptBase {
  context_id: string;
  text: string;
  principal: string | null;
  dedupe_key?: string;
  /** Hop depth: 0 for a person's message, the sender's depth + 1 for message.send. */
  msg_depth?: number;
  /** The A2A task this message answers. */
  task?: { id: string; context_id: string };
}

/** A message to accept into the durable inbox; `kind` names its producer (default `a2a_message`, a caller's). */
export type AcceptInput =
  | (AcceptBase & { kind?: 'a2a_message' | 'startup_prompt' | 'timer' | 'subagent' | 'workflow_step' })
  | (AcceptBase & { kind: 'agent_message'; from: string })
  | (AcceptBase & { kind: 'goal_continuation'; goal_created: number })
  | (AcceptBase & { kind: 'side_task'; parent: string })
  | (AcceptBase & { kind: 'wake_note'; about: string });

/** The inbox event for `input`, accepted at `now`; `mode` is the conversation's mode at this request boundary. */
export function inboxEvent(input: AcceptInput, now: number, mode: 'plan' | 'execute'): InboxEvent {
  const payload: MessagePayload = {
    context_id: input.context_id,
    text: input.text,
    ...(input.msg_depth ? { msg_depth: input.msg_depth } : {}),
    ...(input.task ? { task: input.task } : {}),
    ...(mode === 'plan' ? { mode } : {}),
  };
  const base = { id: newUlid(now), ts: now, principal: input.principal };
  const event = withKind(input, base, payload);
  if (input.dedupe_key !== undefined) event.dedupe_key = input.dedupe_key;
  return event;
}

function withKind(input: AcceptInput, base: Omit<InboxEvent, 'kind' | 'payload'>, payload: MessagePayload): InboxEvent {
  switch (input.kind) {
    case 'agent_message':
      return { ...base, kind: input.kind, payload: { ...payload, from: input.from } };
    case 'goal_continuation':
      return { ...base, kind: input.kind, payload: { ...payload, goal_created: input.goal_created } };
    case 'side_task':
      return { ...base, kind: input.kind, payload: { ...payload, parent: input.parent } };
    case 'wake_note':
      return { ...base, kind: input.kind, payload: { ...payload, about: input.about } };
    default:
      return { ...base, kind: input.kind ?? 'a2a_message', payload };
  }
}
