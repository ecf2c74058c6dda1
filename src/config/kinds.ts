// Value kinds of config keys: how a YAML value or an env/flag string becomes a typed value, or a problem text.
// Pure. A problem names what was expected; string-typed kinds never echo the value (it may be a token).
import { DURATION_HINT, parseDuration } from './duration.js';
import type { ToolSelection } from './types.js';

/** Where inside a structured value a problem sits: `['fs', 'command']`, `[1, 'action']`. */
export type SubPath = readonly (string | number)[];

/** `at` locates the problem inside a structured value (absent: the value as a whole). */
export type Coerced<V> = { ok: true; value: V } | { ok: false; problem: string; at?: SubPath };

/** Substitutes `{{secret:…}}` in one string found at `at`; `sensitive` registers the result for redaction. */
export type SecretResolver = (text: string, at: SubPath, sensitive?: boolean) => string;

export interface ValueKind<V> {
  /** Short type description, e.g. "positive integer"; shown by describeConfigKeys and in secret errors. */
  type: string;
  fromYaml(value: unknown): Coerced<V>;
  /** Absent ⇒ the key cannot be set from the environment (nor from a flag, unless fromFlag is given). */
  fromText?: (text: string) => Coerced<V>;
  /** One flag value (e.g. one `--mcp`); absent ⇒ fromText. */
  fromFlag?: (text: string) => Coerced<V>;
  /** Maps merge key by key across layers instead of replacing. */
  merges?: boolean;
  /**
   * Structured kinds: secrets resolve after validation, only in the strings this visits (so a problem never
   * quotes a secret). Absent ⇒ every string of the raw value is resolved before coercion.
   */
  resolveSecretsIn?: (value: V, resolve: SecretResolver) => V;
}

const MAX_TIMER_MS = 2_147_483_647;
const ok = <V>(value: V): Coerced<V> => ({ ok: true, value });
const fail = <V>(problem: string): Coerced<V> => ({ ok: false, problem });

/** A one-line rendering of an offending non-secret value for a message. */
export function showValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…"` : text;
}

/** A value's type for a message (`a number`, `a list`); strings are quoted. */
export function describeType(value: unknown): string {
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return showValue(value);
}

/** Free text. YAML numbers are accepted as their decimal text; other types are refused without echoing them. */
export function stringKind(): ValueKind<string> {
  return {
    type: 'string',
    fromYaml: (v) => (typeof v === 'string' ? ok(v) : typeof v === 'number' ? ok(String(v)) : fail(expectString(v))),
    fromText: ok,
  };
}

/** Free text or null (YAML `null`/empty). */
export function nullableStringKind(): ValueKind<string | null> {
  const text = stringKind();
  return { type: 'string or null', fromYaml: (v) => (v === null ? ok(null) : text.fromYaml(v)), fromText: ok };
}

function expectString(v: unknown): string {
  return `expected a string, got ${describeType(v)}`;
}

function intLabel(min: number): string {
  if (min === 1) return 'positive integer';
  if (min === 0) return 'non-negative integer';
  return `integer >= ${min}`;
}

/** An integer at or above `min`. */
export function intKind(min: number): ValueKind<number> {
  const type = intLabel(min);
  const check = (v: unknown, raw: unknown): Coerced<number> =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= min
      ? ok(v)
      : fail(`expected a ${type}, got ${showValue(raw)}`);
  return {
    type,
    fromYaml: (v) => check(v, v),
    fromText: (t) => check(/^\s*-?\d+\s*$/.test(t) ? Number(t) : Number.NaN, t),
  };
}

/** An integer at or above `min`, or null. From text, "" and "null" mean null. */
export function nullableIntKind(min: number): ValueKind<number | null> {
  const int = intKind(min);
  const fromText = int.fromText ?? int.fromYaml;
  return {
    type: `${int.type} or null`,
    fromYaml: (v) => (v === null ? ok(null) : int.fromYaml(v)),
    fromText: (t) => (t.trim() === '' || t.trim() === 'null' ? ok(null) : fromText(t)),
  };
}

/** A number in the half-open interval (low, high]. */
export function fractionKind(low: number, high: number): ValueKind<number> {
  const type = `number in (${low}, ${high}]`;
  const check = (v: unknown, raw: unknown): Coerced<number> =>
    typeof v === 'number' && v > low && v <= high ? ok(v) : fail(`expected a ${type}, got ${showValue(raw)}`);
  return {
    type,
    fromYaml: (v) => check(v, v),
    fromText: (t) => check(t.trim() === '' ? Number.NaN : Number(t), t),
  };
}

/** true or false (from text, exactly "true"/"false"). */
export function boolKind(): ValueKind<boolean> {
  const check = (v: unknown, raw: unknown): Coerced<boolean> =>
    typeof v === 'boolean' ? ok(v) : fail(`expected true or false, got ${showValue(raw)}`);
  return {
    type: 'boolean',
    fromYaml: (v) => check(v, v),
    fromText: (t) => check(t.trim() === 'true' ? true : t.trim() === 'false' ? false : undefined, t),
  };
}

/** One of a closed set of strings. */
export function enumKind<const V extends string>(values: readonly V[]): ValueKind<V> {
  const check = (v: unknown): Coerced<V> =>
    typeof v === 'string' && (values as readonly string[]).includes(v)
      ? ok(v as V)
      : fail(`expected one of ${values.join(', ')}, got ${showValue(v)}`);
  return { type: values.join(' | '), fromYaml: check, fromText: (t) => check(t.trim()) };
}

/** A list drawn from a closed set of strings (duplicates dropped); a comma list from the environment. */
export function enumListKind<const V extends string>(values: readonly V[]): ValueKind<V[]> {
  const check = (items: unknown[]): Coerced<V[]> => {
    for (const [i, item] of items.entries()) {
      if (typeof item !== 'string' || !(values as readonly string[]).includes(item)) {
        return { ok: false, problem: `expected one of ${values.join(', ')}, got ${showValue(item)}`, at: [i] };
      }
    }
    return ok([...new Set(items as V[])]);
  };
  return {
    type: `list of ${values.join(' | ')}`,
    fromYaml: (v) => (v === null ? ok([]) : check(Array.isArray(v) ? v : [v])),
    fromText: (t) => check(commaList(t)),
  };
}

/** The non-empty, trimmed items of a comma list (the environment's way of writing a list). */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * A duration in milliseconds: text per parseDuration, or a YAML number of seconds; raised to `floorMs`. Below
 * `minMs` it is a problem (where a too short value would be a mistake rather than a wish).
 */
export function durationKind(floorMs = 0, minMs = 0): ValueKind<number> {
  const bound = (ms: number, raw: unknown): Coerced<number> =>
    ms > MAX_TIMER_MS
      ? fail(`duration ${showValue(raw)} is longer than the maximum of 24d`)
      : ms < minMs
        ? fail(`duration ${showValue(raw)} is shorter than the minimum of ${minMs}ms`)
        : ok(Math.max(ms, floorMs));
  const fromText = (t: string): Coerced<number> => {
    try {
      return bound(parseDuration(t), t);
    } catch (err) {
      return fail((err as Error).message);
    }
  };
  return {
    type: 'duration',
    fromYaml: (v) => {
      if (typeof v === 'string') return fromText(v);
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return bound(Math.round(v * 1_000), v);
      return fail(`invalid duration ${showValue(v)} (${DURATION_HINT})`);
    },
    fromText,
  };
}

/** Null for an http(s) URL, else the problem. The URL is quoted without any user:password it carries. */
export function checkUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${showValue(withoutCredentials(text))} is not an http:// or https:// URL`;
  }
  return url.protocol === 'http:' || url.protocol === 'https:'
    ? null
    : `${showValue(withoutCredentials(text))} is not an http:// or https:// URL`;
}

/** `scheme://user:pass@host` → `scheme://…@host`, also for text that does not parse as a URL. */
function withoutCredentials(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1…@');
}

/** A list of http(s) URLs: a YAML string or list of strings; from text, a comma-separated list. */
export function urlListKind(): ValueKind<string[]> {
  const check = (items: unknown[]): Coerced<string[]> => {
    for (const item of items) {
      if (typeof item !== 'string') return fail(`expected a URL or a list of URLs, got ${showValue(item)}`);
      const problem = checkUrl(item);
      if (problem) return fail(problem);
    }
    return ok(items as string[]);
  };
  return {
    type: 'URL list',
    fromYaml: (v) => (v === null ? ok([]) : check(Array.isArray(v) ? v : [v])),
    fromText: (t) => check(commaList(t)),
  };
}

/** An http(s) URL, or null. */
export function nullableUrlKind(): ValueKind<string | null> {
  const check = (v: unknown): Coerced<string | null> => {
    if (v === null) return ok(null);
    if (typeof v !== 'string') return fail(`expected an http:// or https:// URL, got ${showValue(v)}`);
    const problem = checkUrl(v);
    return problem ? fail(problem) : ok(v);
  };
  return { type: 'URL or null', fromYaml: check, fromText: check };
}

/** A map of free string keys to strings (HTTP headers). Values are never echoed: they often carry credentials. */
export function stringMapKind(): ValueKind<Record<string, string>> {
  return {
    type: 'map of string to string',
    merges: true,
    fromYaml: (v) => {
      if (v === null) return ok({});
      if (typeof v !== 'object' || Array.isArray(v)) return fail(`expected a mapping, got ${describeType(v)}`);
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(v)) {
        if (typeof value !== 'string') return fail(`'${name}': expected a string, got ${describeType(value)}`);
        out[name] = value;
      }
      return ok(out);
    },
  };
}

/** `all`, `none`, or a list of names (agent.tools.*); from text, `all`, `none` or a comma-separated list. */
export function toolSelectionKind(): ValueKind<ToolSelection> {
  const expected = 'expected all, none or a list of names';
  const check = (v: unknown): Coerced<ToolSelection> => {
    if (v === 'all' || v === 'none') return ok(v);
    if (!Array.isArray(v)) return fail(`${expected}, got ${describeType(v)}`);
    const bad = v.findIndex((item) => typeof item !== 'string' || item.length === 0);
    if (bad >= 0) return { ok: false, problem: `expected a name, got ${describeType(v[bad])}`, at: [bad] };
    return ok(v as string[]);
  };
  return {
    type: 'all | none | list of names',
    fromYaml: check,
    fromText: (t) => {
      const text = t.trim();
      if (text === 'all' || text === 'none') return ok(text);
      const names = text.split(',').map((s) => s.trim());
      return names.some((name) => name.length === 0) ? fail(`${expected}, comma-separated`) : ok(names);
    },
  };
}
