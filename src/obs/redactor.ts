// The one redactor, shared by the supervisor and the worker: every secret value the config knows (model and MCP
// tokens, header values, principal bearer tokens, `{{secret:…}}` values) becomes `[redacted]` wherever text leaves
// a process — event lines, errors, frames up from a worker, stored outcomes and transcripts. Holds the process's
// registry; the worker fills its own from the spawn frame's `redact` list (reference §1.5 step 2: never echo a token).

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

/**
 * A copy of a JSON-shaped value with every string (keys left alone) redacted; the value itself when no secret is
 * registered. Used on whole frames, results and fold plans, so no field can be forgotten.
 */
export function redactDeep<T>(value: T): T {
  return ordered.length === 0 ? value : (walk(value) as T);
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(walk);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v);
    return out;
  }
  return value;
}
