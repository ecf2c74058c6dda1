// Where a turn's worker progress reaches the one who started its run (the embedding API), keyed by inbox event.
// It maps progress frames to RunEvents and never blocks the supervisor: a listener only queues.
import type { RunEvent } from '../domain/runEvent.js';
import type { Usage } from '../protocol/messages.js';

type Listener = (event: RunEvent) => void;

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The RunEvent a worker's progress event is, or null for progress a run does not report. */
export function runEventOf(
  runId: string,
  turnId: string,
  event: string,
  fields: Record<string, unknown>,
): RunEvent | null {
  const at = { runId, turnId };
  switch (event) {
    case 'turn.think':
      return { type: 'thinking', ...at, round: num(fields.round) };
    case 'turn.round': {
      const usage: Usage = { input_tokens: num(fields.tokens_in), output_tokens: num(fields.tokens_out) };
      return { type: 'round', ...at, round: num(fields.round), usage };
    }
    case 'turn.text':
      return { type: 'text', ...at, round: num(fields.round), text: str(fields.text) };
    case 'turn.tool':
      return { type: 'tool_call', ...at, tool: str(fields.tool), index: num(fields.i), of: num(fields.of) };
    case 'turn.tool_done':
      return {
        type: 'tool_result',
        ...at,
        ...{ callId: str(fields.id), tool: str(fields.tool), arguments: fields.arguments, result: str(fields.result) },
        ...{ isError: fields.is_error === true, ms: num(fields.ms) },
      };
    default:
      return null;
  }
}

/** Listeners by run (inbox event id). */
export class RunTap {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** Listens to one run's progress; returns the unsubscribe function. */
  watch(runId: string, listener: Listener): () => void {
    let set = this.listeners.get(runId);
    if (!set) {
      set = new Set();
      this.listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(runId);
    };
  }

  /** A worker's progress for run `runId`; cheap when nobody watches it. */
  publish(runId: string, turnId: string, event: string, fields: Record<string, unknown>): void {
    const set = this.listeners.get(runId);
    if (!set) return;
    const mapped = runEventOf(runId, turnId, event, fields);
    if (mapped) for (const listener of [...set]) listener(mapped);
  }
}
