// Token estimates and model-window guesses (reference §16.5): a cheap, provider-independent count.
// Pure: never provider tokens; ceil(Unicode scalar count / 4) everywhere.

import type { Conversation } from '../domain/conversation.js';
import type { Msg } from '../protocol/messages.js';
import { renderPlan, renderSummary } from './render.js';

/** Per-message overhead added to every message body. */
const MESSAGE_OVERHEAD = 4;

/** Unicode scalar values in `text` (a surrogate pair counts once). */
function scalarCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** ceil(scalars / 4). */
export function estimateText(text: string): number {
  return Math.ceil(scalarCount(text) / 4);
}

/** A JSON value: a string counts as its text, null/undefined as 1, anything else as its compact serialization. */
export function estimateValue(value: unknown): number {
  if (typeof value === 'string') return estimateText(value);
  if (value === null || value === undefined) return 1;
  return estimateText(JSON.stringify(value) ?? '');
}

/** Body + 4; an assistant body is its text plus each call's name and arguments. */
export function estimateMessage(msg: Msg): number {
  switch (msg.role) {
    case 'system':
    case 'user':
    case 'note':
      return estimateText(msg.text) + MESSAGE_OVERHEAD;
    case 'assistant': {
      let body = estimateText(msg.text ?? '');
      for (const call of msg.tool_calls) body += estimateText(call.name) + estimateValue(call.arguments);
      return body + MESSAGE_OVERHEAD;
    }
    case 'tool':
      return estimateValue(msg.content) + MESSAGE_OVERHEAD;
  }
}

/** Σ message estimates + the rendered summary + the rendered plan (the recount of §16.4). */
export function estimateConversation(conv: Conversation): number {
  let total = 0;
  for (const msg of conv.messages) total += estimateMessage(msg);
  total += estimateText(renderSummary(conv.summary));
  if (conv.plan !== null) total += estimateText(renderPlan(conv.plan));
  return total;
}

/** The context window guessed from a model name: claude 200k, gemini and gpt-4.1 1M, anything else 128k. */
export function guessWindow(model: string): number {
  const name = model.toLowerCase();
  if (name.includes('claude')) return 200_000;
  if (name.includes('gemini')) return 1_000_000;
  if (name.includes('gpt-4.1')) return 1_000_000;
  return 128_000;
}
