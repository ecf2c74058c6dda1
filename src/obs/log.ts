// JSON-lines events on stderr: `{ts, level, event, ...fields}`, one object per line, written synchronously so
// this process's own lines keep their order across its crash. A worker's lines reach the file only when the
// supervisor reads its pipe: order them by `ts`, and lines still in the pipe are lost if the supervisor is SIGKILLed.
// Registered secret values are redacted from every line before it is written.
import { writeSync } from 'node:fs';
import type { EventName, LogLevel } from './events.js';
import { redact } from './redactor.js';

export { redact, registerSecret } from './redactor.js';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  event(level: LogLevel, event: EventName, fields?: Record<string, unknown>): void;
  info(event: EventName, fields?: Record<string, unknown>): void;
  warn(event: EventName, fields?: Record<string, unknown>): void;
  error(event: EventName, fields?: Record<string, unknown>): void;
  debug(event: EventName, fields?: Record<string, unknown>): void;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Fields stamped on every line (e.g. pid, agent_path). */
  base?: Record<string, unknown>;
  /** Where lines go; stderr (fd 2) by default. */
  write?: (line: string) => void;
}

function writeStderr(line: string): void {
  try {
    writeSync(2, line);
  } catch {
    // stderr closed (EPIPE): events are best effort, never a crash.
  }
}

/** Creates a logger; lines below `level` are dropped before any serialization. */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const min = RANK[opts.level ?? 'info'];
  const base = opts.base ?? {};
  const write = opts.write ?? writeStderr;
  const event = (level: LogLevel, name: EventName, fields: Record<string, unknown> = {}): void => {
    if (RANK[level] < min) return;
    const line = JSON.stringify({ ts: new Date().toISOString(), level, event: name, ...base, ...fields });
    write(`${redact(line)}\n`);
  };
  return {
    event,
    info: (n, f) => event('info', n, f),
    warn: (n, f) => event('warn', n, f),
    error: (n, f) => event('error', n, f),
    debug: (n, f) => event('debug', n, f),
  };
}

/** A logger that drops everything (unit tests, embedding without events). */
export const silentLogger: Logger = createLogger({ write: () => {} });
