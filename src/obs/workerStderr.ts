// A worker's stderr, read by the supervisor and re-emitted through its logger: each JSON line as the same event
// (so an embedder's `log` sees worker events), anything else as one capped `worker.stderr` event. The policy
// (`workerLine`) is pure; `forwardWorkerStderr` is the thin shell over the pipe.
import type { EventName, LogLevel } from './events.js';
import type { Logger } from './log.js';

/** A non-JSON line is cut to this many characters (a stack trace or a server's chatter must stay one small event). */
export const WORKER_LINE_CAP = 2_000;
/** An unterminated line longer than this is passed on as it is (a writer that never ends its line). */
const PENDING_CAP = 1_048_576;

const LEVELS = new Set<string>(['debug', 'info', 'warn', 'error']);

/** One stderr line of a worker as the event the supervisor writes for it; null for a blank line. */
export type WorkerLine = { level: LogLevel; event: EventName; fields: Record<string, unknown> } | null;

/** Classifies one line: a worker's own event `{ts, level, event, …}` keeps its fields (ts, pid, comp included). */
export function workerLine(line: string, pid: number): WorkerLine {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text.trim() === '') return null;
  const parsed = parseObject(text);
  if (parsed && typeof parsed.event === 'string' && typeof parsed.level === 'string' && LEVELS.has(parsed.level)) {
    const { level, event, ...fields } = parsed;
    return { level: level as LogLevel, event: event as EventName, fields };
  }
  const cut = text.length > WORKER_LINE_CAP ? `${text.slice(0, WORKER_LINE_CAP)}… [truncated]` : text;
  return { level: 'warn', event: 'worker.stderr', fields: { worker_pid: pid, line: cut } };
}

function parseObject(text: string): Record<string, unknown> | null {
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Reads `stream` (a worker's stderr) line by line into `log`, resolving once it ended. The logger redacts every
 * line it writes, so a secret a worker printed outside its own logger is redacted here too.
 */
export function forwardWorkerStderr(stream: NodeJS.ReadableStream, log: Logger, pid: number): Promise<void> {
  let pending = '';
  const emit = (line: string): void => {
    const out = workerLine(line, pid);
    if (out) log.event(out.level, out.event, out.fields);
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) emit(line);
    if (pending.length > PENDING_CAP) {
      emit(pending);
      pending = '';
    }
  });
  return new Promise((resolve) => {
    const done = (): void => {
      if (pending !== '') emit(pending);
      pending = '';
      resolve();
    };
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', done);
  });
}
