// Which idle conversations leave memory (`store.conversation_cache`): the least recently used first, until the
// resident set is back within its entry and byte limits. Pure: the book says which may go and what each weighs.
import type { Conversation } from '../domain/conversation.js';
import { controlsOf } from './controls.js';

/** How much of the conversations stays in memory. */
export interface CacheLimits {
  /** Conversations held at most. */
  entries: number;
  /** Their stored bytes (messages' JSON) at most. */
  bytes: number;
}

export interface ResidentConversation {
  id: string;
  bytes: number;
  /** False while anything holds it: a job, a commit in flight, a change not yet written, an active goal. */
  evictable: boolean;
}

/**
 * The ids to evict, in `resident`'s order (least recently used first): only evictable ones, and only while the
 * set is over a limit. A set held over its limits by busy conversations stays over them until they go idle.
 */
export function planEviction(resident: readonly ResidentConversation[], limits: CacheLimits): string[] {
  let count = resident.length;
  let bytes = resident.reduce((sum, r) => sum + r.bytes, 0);
  const evict: string[] = [];
  for (const r of resident) {
    if (count <= limits.entries && bytes <= limits.bytes) break;
    if (!r.evictable) continue;
    evict.push(r.id);
    count--;
    bytes -= r.bytes;
  }
  return evict;
}

/** No pending work rides on a conversation: no active goal, no notes waiting for a turn. */
export function noPendingWork(conv: Conversation): boolean {
  if (conv.controls === undefined) return true;
  const controls = controlsOf(conv);
  return controls.goal?.status !== 'active' && (controls.pending_notes ?? []).length === 0;
}
