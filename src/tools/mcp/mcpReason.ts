// Short, single-line reasons for MCP failures (connect, list, call), scrubbed of credentials. Pure.
// A reason reaches the model and the events, so it never carries a header value or a configured env value.
import { isCredentialHeader, redact, redactWith } from '../../obs/redactor.js';
import { STDIO_ENV_ALLOW, STDIO_ENV_ALLOW_PREFIXES } from './mcpEnv.js';

const MAX_REASON = 200;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

/** The innermost useful message: `fetch failed` says nothing without its cause (ECONNREFUSED, ENOTFOUND, …). */
function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return firstLine(String(err));
  if (err.name === 'ZodError' || Array.isArray((err as { issues?: unknown }).issues)) {
    return 'invalid response from the server';
  }
  const own = firstLine(err.message) || err.name;
  const cause = (err as { cause?: unknown }).cause;
  if (isRecord(cause) && typeof cause.message === 'string' && cause.message !== '') {
    return `${own}: ${firstLine(cause.message)}`;
  }
  return own;
}

/** Replaces `secrets` and every registered secret (length ≥ 4) in `text` with `[redacted]`. */
export function scrub(text: string, secrets: readonly string[]): string {
  return redact(redactWith(text, secrets));
}

/** A one-line reason for a thrown value, at most 200 characters, with `secrets` scrubbed. */
export function shortReason(err: unknown, secrets: readonly string[] = []): string {
  const text = scrub(messageOf(err), secrets);
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text || 'unknown error';
}

/**
 * The values of a server spec that must never show up in a reason: credential-named headers and env variables
 * (`Authorization`, `API_KEY`, `GITHUB_TOKEN`), never the inherited allow-list. Other values are configuration
 * (`LOG_LEVEL: warn`) and would only garble messages; secret-sourced ones are in the registry `scrub` also uses.
 */
export function specSecrets(spec: { headers?: Record<string, string>; env?: Record<string, string> }): string[] {
  const out = Object.entries(spec.headers ?? {}).flatMap(([name, value]) => (isCredentialHeader(name) ? [value] : []));
  for (const [name, value] of Object.entries(spec.env ?? {})) {
    const inherited = STDIO_ENV_ALLOW.includes(name) || STDIO_ENV_ALLOW_PREFIXES.some((p) => name.startsWith(p));
    if (!inherited && isCredentialHeader(name)) out.push(value);
  }
  return out;
}

const ERRORISH = /error|exception|not found|no such|denied|cannot|can't|failed|invalid|missing/i;

/**
 * The stderr line that most likely says why a stdio server died: the last one that reads like an error (a Node or
 * Python traceback ends with the runtime's version or a frame line), else the last non-empty one.
 */
export function stderrHint(lines: readonly string[]): string | null {
  const meaningful = lines.map((l) => l.trim()).filter((l) => l !== '');
  const errorish = meaningful.filter((l) => ERRORISH.test(l) && !/^at\s/.test(l));
  return errorish.at(-1) ?? meaningful.at(-1) ?? null;
}
