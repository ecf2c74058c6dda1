// createAgent's options checked before anything starts: an unknown option or a value of the wrong type is a
// DaemonError (`usage_invalid`) naming the option, in one line, as a bad CLI flag is. Values the config layer
// judges (a URL, a limit) are checked by compileConfig after this and fail as `config_invalid`.
import { closestKey } from './config/suggest.js';
import { DaemonError } from './errors.js';

type Check = (value: unknown) => string | null;

/** A value as a one-line message may show it: primitives (strings cut short), else only their type. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const expect = (ok: boolean, what: string, value: unknown): string | null =>
  ok ? null : `expected ${what}, got ${shown(value)}`;

const text: Check = (v) => expect(typeof v === 'string', 'a string', v);
const word: Check = (v) => expect(typeof v === 'string' && v.trim() !== '', 'a non-empty string', v);
const object: Check = (v) => expect(isObject(v), 'an object', v);
const listOf =
  (item: Check, what: string): Check =>
  (v) =>
    expect(Array.isArray(v) && v.every((x) => item(x) === null), what, v);
const orNull =
  (check: Check, what: string): Check =>
  (v) =>
    expect(v === null || check(v) === null, what, v);
const hasMethods =
  (what: string, ...names: string[]): Check =>
  (v) =>
    expect(isObject(v) && names.every((n) => typeof v[n] === 'function'), what, v);

const producer: Check = (v) =>
  expect(isObject(v) && typeof v.name === 'string' && hasMethods('', 'start', 'stop')(v) === null, 'a producer', v);

/** Every option and its check; `config` is checked by CONFIG_SOURCES. */
const OPTIONS: Record<string, Check> = {
  name: word,
  instruction: text,
  model: word,
  intelligence: (v) =>
    expect(
      word(v) === null || (Array.isArray(v) && v.length > 0 && v.every((u) => word(u) === null)),
      'a URL or a list of URLs',
      v,
    ),
  mcp: (v) => expect(isObject(v) && Object.values(v).every(isObject), 'a map of server name to server', v),
  store: (v) => expect(typeof v === 'string' && v.trim() !== '', "'memory' or the state directory's path", v),
  config: object,
  tools: listOf(object, 'a list of tools (defineTool)'),
  toolsModule: (v) => expect(typeof v === 'string' || v instanceof URL, 'a module path or URL', v),
  log: hasMethods('a Logger (createLogger)', 'event', 'info', 'warn', 'error', 'debug'),
  listen: orNull(word, 'a URL or null'),
  metrics: orNull(word, 'HOST:PORT or null'),
  producers: listOf(producer, 'a list of producers ({name, start, stop})'),
};

const CONFIG_SOURCES: Record<string, Check> = {
  files: listOf(word, 'a list of file paths'),
  values: object,
  env: (v) =>
    expect(
      isObject(v) && Object.values(v).every((s) => s === undefined || typeof s === 'string'),
      'a map of strings',
      v,
    ),
  flags: object,
  cwd: word,
};

/** The first problem of `given` against `table`, with `prefix` before each option's name; null when none. */
function problemIn(given: Record<string, unknown>, table: Record<string, Check>, prefix: string): string | null {
  const known = Object.keys(table);
  for (const [key, value] of Object.entries(given)) {
    const check = table[key];
    if (!check) {
      const hint = closestKey(key, known);
      return `unknown option '${prefix}${key}'${hint ? ` (did you mean '${prefix}${hint}'?)` : ''}`;
    }
    const problem = value === undefined ? null : check(value);
    if (problem) return `option '${prefix}${key}': ${problem}`;
  }
  return null;
}

/** Throws a DaemonError (`usage_invalid`) naming the first option that is unknown or of the wrong type. */
export function checkAgentOptions(opts: unknown): void {
  const problem = isObject(opts)
    ? (problemIn(opts, OPTIONS, '') ??
      (isObject(opts.config) ? problemIn(opts.config, CONFIG_SOURCES, 'config.') : null))
    : `options: expected an object, got ${shown(opts)}`;
  if (problem) throw new DaemonError('usage_invalid', `createAgent: ${problem}`);
}
