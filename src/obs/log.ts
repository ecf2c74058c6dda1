// JSON-lines events on stderr: `{ts, level, event, ...fields}`, one object per line, written synchronously so
// order holds across a crash. Registered secret values are redacted from every line before it is written.
import { writeSync } from 'node:fs';
import type { EventName, LogLevel } from './events.js';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const REDACTED = '[redacted]';

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

const secrets = new Set<string>();

/** Registers a secret value: it is replaced by `[redacted]` in every line any logger writes from now on. */
export function registerSecret(value: string | null | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}

/** Removes every registered secret from a string (also used for error messages shown to users). */
export function redact(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
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
