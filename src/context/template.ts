// The prompt template language (reference §8.1): `{{path}}`, `{{#if path}}…{{/if}}` and
// `{{#each list}}…{{this.x}}…{{/each}}` over plain data. Pure: compile once, render many; no I/O.

/** A template that does not parse, or data it cannot render (`#each` over a value that is not a list). */
export class TemplateError extends Error {}

type Node =
  | { t: 'text'; text: string }
  | { t: 'var'; path: string }
  | { t: 'if'; path: string; body: Node[] }
  | { t: 'each'; path: string; body: Node[] };

export interface CompiledTemplate {
  readonly source: string;
  readonly nodes: readonly Node[];
}

const TAG = /\{\{\s*([#/]?)\s*([A-Za-z_][\w.]*|this(?:\.[\w.]+)?)?\s*([A-Za-z_][\w.]*|this(?:\.[\w.]+)?)?\s*\}\}/g;

interface Frame {
  kind: 'root' | 'if' | 'each';
  path: string;
  body: Node[];
}

/** Literal text; a `{{` left in it is a tag that did not parse. */
function pushText(body: Node[], text: string, offset: number): void {
  const stray = text.indexOf('{{');
  if (stray >= 0) throw new TemplateError(`at ${offset + stray}: an unfinished or malformed tag`);
  body.push({ t: 'text', text });
}

/** Parses `source`; throws a TemplateError naming the first problem and its offset. */
export function compileTemplate(source: string): CompiledTemplate {
  const stack: Frame[] = [{ kind: 'root', path: '', body: [] }];
  const top = (): Frame => stack[stack.length - 1] as Frame;
  let at = 0;
  for (const match of source.matchAll(TAG)) {
    const index = match.index ?? 0;
    if (index > at) pushText(top().body, source.slice(at, index), at);
    at = index + match[0].length;
    const [, sigil, word, arg] = match;
    if (sigil === '#') {
      if ((word !== 'if' && word !== 'each') || arg === undefined) {
        throw new TemplateError(`at ${index}: expected {{#if path}} or {{#each path}}, got ${match[0]}`);
      }
      stack.push({ kind: word, path: arg, body: [] });
    } else if (sigil === '/') {
      const open = top();
      if (open.kind === 'root' || word !== open.kind || arg !== undefined) {
        throw new TemplateError(`at ${index}: ${match[0]} closes nothing open`);
      }
      stack.pop();
      top().body.push({ t: open.kind, path: open.path, body: open.body });
    } else {
      if (word === undefined || arg !== undefined) throw new TemplateError(`at ${index}: malformed tag ${match[0]}`);
      top().body.push({ t: 'var', path: word });
    }
  }
  if (at < source.length) pushText(top().body, source.slice(at), at);
  if (stack.length > 1) throw new TemplateError(`{{#${top().kind} ${top().path}}} is never closed`);
  return { source, nodes: top().body };
}

/** Compiled templates by source text; cleared when it reaches CACHE_LIMIT entries. */
const cache = new Map<string, CompiledTemplate>();
const CACHE_LIMIT = 64;

/** compileTemplate, remembered by source text. */
export function cachedTemplate(source: string): CompiledTemplate {
  let compiled = cache.get(source);
  if (compiled === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    compiled = compileTemplate(source);
    cache.set(source, compiled);
  }
  return compiled;
}

function lookup(path: string, data: unknown, self: unknown): unknown {
  const parts = path.split('.');
  let value: unknown = data;
  if (parts[0] === 'this') {
    value = self;
    parts.shift();
  }
  for (const part of parts) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Empty text, an empty list, null, false and 0 are false. */
function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== undefined && value !== null && value !== false && value !== '' && value !== 0;
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(text).join(', ');
  return JSON.stringify(value);
}

function renderNodes(nodes: readonly Node[], data: unknown, self: unknown, out: string[]): void {
  for (const node of nodes) {
    if (node.t === 'text') out.push(node.text);
    else if (node.t === 'var') out.push(text(lookup(node.path, data, self)));
    else if (node.t === 'if') {
      if (truthy(lookup(node.path, data, self))) renderNodes(node.body, data, self, out);
    } else {
      const list = lookup(node.path, data, self);
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list)) throw new TemplateError(`{{#each ${node.path}}}: not a list`);
      for (const item of list) renderNodes(node.body, data, item, out);
    }
  }
}

/** Renders over `data`; a missing path renders as nothing. Throws TemplateError for `#each` over a non-list. */
export function renderTemplate(template: CompiledTemplate, data: unknown): string {
  const out: string[] = [];
  renderNodes(template.nodes, data, undefined, out);
  return out.join('');
}
