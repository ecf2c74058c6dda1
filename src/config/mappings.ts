// Readers for structured config values (mcp.servers, security.policies): closed mappings with "did you mean"
// for unknown keys, and fields whose problems carry their place inside the value. Pure.
import { type Coerced, describeType, enumKind, type SubPath } from './kinds.js';
import { editDistance } from './suggest.js';

export type Mapping = Record<string, unknown>;

/** A problem at a place inside the value; thrown by the readers below and caught once by `shaped`. */
class ShapeProblem extends Error {
  constructor(
    readonly at: SubPath,
    readonly problem: string,
  ) {
    super(problem);
  }
}

/** Runs a reader; a ShapeProblem becomes a Coerced failure with its place, anything else propagates. */
export function shaped<V>(read: () => V): Coerced<V> {
  try {
    return { ok: true, value: read() };
  } catch (err) {
    if (err instanceof ShapeProblem) return { ok: false, problem: err.problem, at: err.at };
    throw err;
  }
}

/** Stops the current reader with a problem at `at`. */
export function problemAt(at: SubPath, problem: string): never {
  throw new ShapeProblem(at, problem);
}

export function isMapping(value: unknown): value is Mapping {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value as a mapping whose keys are all in `allowed`; an unknown key is named with the closest allowed one. */
export function closedMapping(value: unknown, allowed: readonly string[], at: SubPath, expected: string): Mapping {
  if (!isMapping(value)) return problemAt(at, `expected ${expected}, got ${describeType(value)}`);
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    const hint = closestName(key, allowed);
    problemAt([...at, key], `unknown key (${hint ? `did you mean '${hint}'?` : `expected ${allowed.join(', ')}`})`);
  }
  return value;
}

/** The allowed key a typo most likely meant: within two edits, and fewer for short keys. */
function closestName(key: string, allowed: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.min(2, Math.floor(key.length / 2)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const name of allowed) {
    const distance = editDistance(key, name);
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best;
}

/** Text: a string, or a number or boolean as its text (`args: [--port, 8080]`). Strings are never echoed. */
export function textAt(value: unknown, at: SubPath): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return problemAt(at, `expected a string, got ${describeType(value)}`);
}

/** Text that must not be empty. */
export function nameAt(value: unknown, at: SubPath): string {
  const text = textAt(value, at);
  return text.trim().length > 0 ? text : problemAt(at, 'expected a non-empty string');
}

/** A list of texts; a single scalar counts as a one-item list when `scalarAsList`. Absent/null ⇒ []. */
export function textListAt(value: unknown, at: SubPath, scalarAsList = false): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) {
    return scalarAsList ? [textAt(value, at)] : problemAt(at, `expected a list, got ${describeType(value)}`);
  }
  return value.map((item, i) => textAt(item, [...at, i]));
}

/** A map of free keys to texts (headers, env). Absent/null ⇒ {}. */
export function textMapAt(value: unknown, at: SubPath): Record<string, string> {
  if (value === null || value === undefined) return {};
  if (!isMapping(value)) return problemAt(at, `expected a mapping, got ${describeType(value)}`);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, textAt(item, [...at, key])]));
}

/** One of a closed set of strings. */
export function choiceAt<const V extends string>(value: unknown, values: readonly V[], at: SubPath): V {
  if (value === undefined) return problemAt(at, `expected one of ${values.join(', ')}`);
  const result = enumKind(values).fromYaml(value);
  return result.ok ? result.value : problemAt(at, result.problem);
}
