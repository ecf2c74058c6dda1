// Reads one YAML config file into Settings of known keys, with `file:line` origins; unknown keys and syntax
// errors become one-line problems. Reads the file and nothing else: no defaults, no coercion, no secrets.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Document, isAlias, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, type YAMLMap } from 'yaml';
import type { SubPath } from './kinds.js';
import { isSection, KEY_PATHS, keySpec, type LongForm, sectionPaths } from './schema.js';
import type { Setting } from './setting.js';
import { closestKey } from './suggest.js';

export interface YamlSource {
  settings: Setting[];
  problems: string[];
}

interface Walk extends YamlSource {
  file: string;
  doc: Document;
  lines: LineCounter;
}

const READ_FAILURES: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
};

/** Parses `file` (resolved against `cwd`, shown as given) into settings and problems. */
export function readYamlSource(file: string, cwd: string): YamlSource {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    return { settings: [], problems: [`${file}: cannot read config file: ${READ_FAILURES[code] ?? code}`] };
  }
  return readYamlText(text, file);
}

/** Parses YAML `text` named `file` in its messages (a config file's contents, or createAgent's inline options). */
export function readYamlText(text: string, file: string): YamlSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true });
  const syntax = doc.errors[0];
  if (syntax) {
    const line = syntax.linePos?.[0].line ?? 1;
    const message = (syntax.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return { settings: [], problems: [`${file}:${line}: invalid YAML: ${message}`] };
  }
  const walk: Walk = { file, doc, lines, settings: [], problems: [] };
  const top = doc.contents;
  if (top === null || (isScalar(top) && top.value === null)) return walk;
  if (isMap(top)) walkMap(walk, top, '');
  else walk.problems.push(`${file}:${lineOf(walk, top)}: expected a mapping of config keys at the top level`);
  return { settings: walk.settings, problems: walk.problems };
}

function walkMap(walk: Walk, map: YAMLMap, prefix: string): void {
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const where = `${walk.file}:${lineOf(walk, pair.key ?? pair.value)}`;
    const value = isAlias(pair.value) ? pair.value.resolve(walk.doc) : pair.value;
    const spec = keySpec(path);
    if (spec?.longForm && isMap(value)) walkLongForm(walk, value, path, spec.longForm);
    else if (spec) pushSetting(walk, path, pair.key, value);
    else if (isSection(path)) {
      if (isMap(value)) walkMap(walk, value, path);
      else if (!(value === null || value === undefined || (isScalar(value) && value.value === null))) {
        walk.problems.push(`${where}: ${path}: expected a mapping of keys`);
      }
    } else {
      const hint = closestKey(path, [...KEY_PATHS, ...sectionPaths()]);
      walk.problems.push(`${where}: unknown key '${path}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
    }
  }
}

function pushSetting(walk: Walk, path: string, keyNode: unknown, value: unknown): void {
  const js: unknown = isNode(value) ? value.toJS(walk.doc) : (value ?? null);
  const origin = `${walk.file}:${lineOf(walk, keyNode ?? value)}`;
  const locate = (at: SubPath): string => `${walk.file}:${lineWithin(walk, value, at) ?? lineOf(walk, keyNode)}`;
  walk.settings.push({ path, value: js, source: 'file', origin, locate, secrets: true });
}

/** `preflight: {model: fast, confidence: 0.6}`: each sub-key is a setting of the key it names. */
function walkLongForm(walk: Walk, map: YAMLMap, path: string, form: LongForm): void {
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const target = Object.hasOwn(form.keys, key) ? form.keys[key] : undefined;
    const value = isAlias(pair.value) ? pair.value.resolve(walk.doc) : pair.value;
    if (target !== undefined) pushSetting(walk, target, pair.key, value);
    else {
      const expected = `expected ${Object.keys(form.keys).join(', ')}${form.hint ? `; ${form.hint}` : ''}`;
      walk.problems.push(
        `${walk.file}:${lineOf(walk, pair.key ?? pair.value)}: ${path}.${key}: unknown key (${expected})`,
      );
    }
  }
}

/** The line of the deepest node of `at` that exists under `node` (a map key's line for a map step). */
function lineWithin(walk: Walk, node: unknown, at: SubPath): number | undefined {
  let current = node;
  let line: number | undefined;
  for (const step of at) {
    if (isAlias(current)) current = current.resolve(walk.doc);
    if (isMap(current)) {
      const pair = current.items.find((item) => isScalar(item.key) && String(item.key.value) === String(step));
      if (!pair) break;
      line = lineOf(walk, pair.key);
      current = pair.value;
    } else if (isSeq(current) && typeof step === 'number') {
      const item = current.items[step];
      if (item === undefined) break;
      line = lineOf(walk, item);
      current = item;
    } else break;
  }
  return line;
}

function lineOf(walk: Walk, node: unknown): number {
  const offset = isNode(node) ? node.range?.[0] : undefined;
  return offset === undefined ? 1 : walk.lines.linePos(offset).line;
}
