// The reply to a `status` message (reference §6.4 "status_for"): the instance as the asker may see it — the
// operator (or no principal) sees everything, anyone else only their own conversations. Pure.
import type { Conversation } from '../domain/conversation.js';
import { actsForAll } from '../domain/principal.js';

export interface StatusView {
  principal: string | null;
  conversations: ReadonlyArray<Pick<Conversation, 'id' | 'principal'>>;
  /** Conversations with a running turn. */
  running: readonly string[];
  /** Conversations of the queued messages, one entry per message. */
  queued: readonly string[];
  paused: boolean;
  draining: boolean;
}

/** `Status: <n> running turns, <n> queued messages, <n> conversations[ (yours)][; paused][; draining]`. */
export function statusText(view: StatusView): string {
  const everything = actsForAll(view.principal);
  const visible = new Set(
    view.conversations.filter((c) => everything || c.principal === view.principal).map((c) => c.id),
  );
  const running = view.running.filter((id) => visible.has(id)).length;
  const queued = view.queued.filter((id) => visible.has(id)).length;
  const parts = [`Status: ${running} running turns, ${queued} queued messages, ${visible.size} conversations`];
  if (!everything) parts[0] += ' (yours)';
  if (view.paused) parts.push('paused');
  if (view.draining) parts.push('draining');
  return parts.join('; ');
}
