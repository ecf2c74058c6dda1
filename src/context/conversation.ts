// Conversation state as plain data (reference §2.3): creation, appending, replay dedupe.
// Pure: the caller owns persistence (dirty marking, checkpoints); functions mutate the object they are given.

import type { Conversation } from '../domain/conversation.js';
import type { Msg } from '../protocol/messages.js';

/** The root conversation's id. */
export const ROOT_CONVERSATION = 'root';

/** A fresh conversation: version 1, no summary, no plan, no messages. */
export function newConversation(
  id: string,
  kind: Conversation['kind'],
  principal: string | null,
  now: number,
): Conversation {
  return {
    id,
    kind,
    version: 1,
    summary: null,
    messages: [],
    plan: null,
    principal,
    turns: 0,
    created: now,
    updated: now,
  };
}

/**
 * Appends `msg` in place and touches `updated`; returns the same conversation for chaining.
 * `version` never changes here: only compaction moves it.
 */
export function appendMessage(conv: Conversation, msg: Msg, now: number): Conversation {
  conv.messages.push(msg);
  conv.updated = now;
  return conv;
}

/** Whether a user message carrying inbox event `eventId` is already in the transcript (replay must not re-append). */
export function hasUserMessageForEvent(conv: Conversation, eventId: string): boolean {
  return conv.messages.some((m) => m.role === 'user' && m.event === eventId);
}

/**
 * A copy of what a commit writes: the message list and the small mutable parts are copied; messages themselves
 * are never changed once appended, so they are shared.
 */
export function commitSnapshot(conv: Conversation, cap = Number.POSITIVE_INFINITY): Conversation {
  const copy: Conversation = {
    ...conv,
    messages: conv.messages.slice(0, Math.min(cap, conv.messages.length)),
    summary: conv.summary === null ? null : structuredClone(conv.summary),
    plan: conv.plan === null ? null : structuredClone(conv.plan),
  };
  if (conv.controls !== undefined) copy.controls = structuredClone(conv.controls);
  if (conv.skills !== undefined) copy.skills = conv.skills.slice();
  return copy;
}
