// Volatile facts for the tail of the transcript (reference §8.2 cache contract): they arrive as [note] messages,
// never in the system prompt, so the prompt's stable prefix survives them. Pure: messages and the clock in.
import type { Msg } from '../protocol/messages.js';

const DATE_NOTE_PREFIX = 'current date: ';

/** `current date: YYYY-MM-DD (UTC)` when the conversation has not been told today's date yet; else null. */
export function dateNote(messages: readonly Msg[], now: number): string | null {
  const today = `${DATE_NOTE_PREFIX}${new Date(now).toISOString().slice(0, 10)} (UTC)`;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Msg;
    if (m.role === 'note' && m.text.startsWith(DATE_NOTE_PREFIX)) return m.text === today ? null : today;
  }
  return today;
}
