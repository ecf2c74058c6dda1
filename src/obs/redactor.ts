// The one redactor, shared by the supervisor and the worker: every credential the config knows (model and MCP
// tokens, credential-named header values, principal bearer tokens, AWS keys, `{{secret:…}}` values) becomes
// `[redacted]` wherever text leaves a process — event lines, errors, frames up from a worker, stored outcomes and
// transcripts. Holds the process's registry; the worker fills its own from the spawn frame's `redact` list
// (reference §1.5 step 2: never echo a token). Ordinary config values (a `LOG_LEVEL: warn`) are not credentials:
// registering them would shred every answer that contains the word.

export const REDACTED = '[redacted]';

/** Shorter values are not registered: redacting "a" or "on" would shred ordinary text. */
const MIN_SECRET_CHARS = 4;

const secrets = new Set<string>();
/** Longest first, so a secret that contains another is replaced whole. Rebuilt when the registry grows. */
let ordered: readonly string[] = [];

/** Registers a secret value: from now on `redact` (and so every logger) replaces it by `[redacted]`. */
export function registerSecret(value: string | null | undefined): void {
  if (!value || value.length < MIN_SECRET_CHARS || secrets.has(value)) return;
  secrets.add(value);
  ordered = [...secrets].sort((a, b) => b.length - a.length);
}

/** Every registered value, for the spawn frame of a worker (which must redact them too); never log this list. */
export function knownSecrets(): string[] {
  return [...ordered];
}

/** `text` with every one of `values` (≥ 4 characters) replaced by `[redacted]`. Pure. */
export function redactWith(text: string, values: Iterable<string>): string {
  let out = text;
  for (const s of values) if (s.length >= MIN_SECRET_CHARS && out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** `text` without any registered secret. */
export function redact(text: string): string {
  return ordered.length === 0 ? text : redactWith(text, ordered);
}

/** A header whose value is a credential (Authorization, Proxy-Authorization, Cookie, *key*, *token*, *secret*). */
export function isCredentialHeader(name: string): boolean {
  return /authorization|cookie|key|token|secret|password/i.test(name);
}

/** Fields that name or classify rather than say something: their strings are never rewritten. */
const STRUCTURAL = new Set(['role', 'type', 'status', 'id', 'name', 'kind', 'tool_use_id', 'event', 'error_kind']);
/** Free-form payloads (tool arguments and results, finish output): every string inside is text. */
const FREE = new Set(['args', 'input', 'arguments', 'result', 'output', 'value']);

/**
 * A copy of a JSON-shaped value with its text fields redacted (message text and content, replies, errors, tool
 * arguments and results); structural fields (role, type, status, id, name, kind…) are left as they are, so a
 * transcript keeps its shape. The value itself when no secret is registered.
 */
export function redactDeep<T>(value: T): T {
  return ordered.length === 0 ? value : (walk(value, false) as T);
}

function walk(value: unknown, free: boolean): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, free));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = !free && typeof v === 'string' && STRUCTURAL.has(k) ? v : walk(v, free || FREE.has(k));
    }
    return out;
  }
  return value;
}
