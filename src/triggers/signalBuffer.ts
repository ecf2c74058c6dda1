// A run's signal buffer (producers reference §3.7, §5 item 8: agentd loses a signal with no waiter): signals sent to
// a run wait there, oldest first, until a waiter takes the first of its name; past the bound the oldest is dropped.
// Pure: the buffer in, the next buffer and what happened out.
import type { BufferedSignal } from '../domain/workflow.js';

/** Signals one run holds at most. */
export const SIGNAL_BUFFER_BOUND = 64;

export type BufferOutcome =
  | { type: 'duplicate' }
  | { type: 'buffered'; buffer: BufferedSignal[]; dropped: BufferedSignal | null };

/** Appends `signal` unless its key is held already; a full buffer drops its oldest signal. */
export function bufferSignal(
  buffer: readonly BufferedSignal[],
  signal: BufferedSignal,
  bound = SIGNAL_BUFFER_BOUND,
): BufferOutcome {
  if (buffer.some((s) => s.key === signal.key)) return { type: 'duplicate' };
  const next = [...buffer, signal];
  const dropped = next.length > bound ? (next.shift() ?? null) : null;
  return { type: 'buffered', buffer: next, dropped };
}

/** Takes the oldest signal named `name`: it and the buffer without it, or null and the buffer unchanged. */
export function takeSignal(
  buffer: readonly BufferedSignal[],
  name: string,
): { signal: BufferedSignal | null; buffer: BufferedSignal[] } {
  const at = buffer.findIndex((s) => s.name === name);
  if (at < 0) return { signal: null, buffer: [...buffer] };
  return { signal: buffer[at] ?? null, buffer: [...buffer.slice(0, at), ...buffer.slice(at + 1)] };
}
