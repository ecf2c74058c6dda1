// The transcript slice a turn sends (reference §8.3): summary and plan as system messages, then the messages.
// Pure: the worker adds the system prompt in front; wire conversion happens in the dialects.

import type { Conversation } from '../domain/conversation.js';
import type { Msg } from '../protocol/messages.js';
import { isSummaryEmpty, renderPlan, renderSummary } from './render.js';

/** [system(summary) if non-empty] + [system(plan) if any] + the messages verbatim. */
export function sliceConversation(conv: Conversation): Msg[] {
  const slice: Msg[] = [];
  if (conv.summary !== null && !isSummaryEmpty(conv.summary)) {
    slice.push({ role: 'system', text: renderSummary(conv.summary), ts: conv.summary.updated });
  }
  if (conv.plan !== null) slice.push({ role: 'system', text: renderPlan(conv.plan), ts: conv.plan.updated });
  slice.push(...conv.messages);
  return slice;
}
