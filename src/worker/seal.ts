// Sealing (reference §11.4, §21.3): every unexecuted tool call still gets an error result, so no call id in the
// durable transcript is left unanswered (providers reject such a transcript forever). Pure.
import type { Msg, ToolCall } from '../protocol/messages.js';
import type { TurnStatus } from '../protocol/status.js';

/** The error text of a call that never ran because the turn ended first. */
export function sealText(name: string, status: TurnStatus): string {
  return `${name}: not executed — the turn ended (${status}) before this call ran`;
}

/** One error tool message per call, in order. */
export function sealCalls(calls: readonly ToolCall[], status: TurnStatus, ts: number): Msg[] {
  return calls.map((c) => ({
    role: 'tool',
    id: c.id,
    name: c.name,
    content: sealText(c.name, status),
    is_error: true,
    ts,
  }));
}

/** Call ids in `messages` that have no tool result after them (empty for a well-formed delta). */
export function unansweredCalls(messages: readonly Msg[]): string[] {
  const open: string[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') open.push(...m.tool_calls.map((c) => c.id));
    if (m.role === 'tool') {
      const at = open.indexOf(m.id);
      if (at >= 0) open.splice(at, 1);
    }
  }
  return open;
}
