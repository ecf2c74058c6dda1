// `{{…}}` templates and `CEL:` strings inside a step's fields (producers reference §2.5). Pure.
// A string that is exactly one placeholder yields the typed value; otherwise placeholders interpolate.
import { evalCel, isCelString } from '../expr/cel.js';

export type Rendered = { ok: true; value: unknown } | { ok: false; error: string };

const PLACEHOLDER = /\{\{\s*([^}]+?)\s*\}\}/g;
const SOLE = /^\{\{\s*([^}]+?)\s*\}\}$/;

/** Looks a dotted (`steps.a.output.x`, `items.0`) or JSON-pointer (`/steps/a`) path up in `scope`. */
export function lookupPath(scope: unknown, path: string): { found: boolean; value: unknown } {
  const parts = path.startsWith('/')
    ? path
        .slice(1)
        .split('/')
        .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    : path.split('.');
  let at: unknown = scope;
  for (const part of parts) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, part)) return { found: false, value: undefined };
    at = (at as Record<string, unknown>)[part];
  }
  return { found: at !== undefined, value: at };
}

/** One placeholder's value: its path, else its `| default` (JSON if it parses, else the literal text). */
function placeholder(expr: string, scope: unknown): Rendered {
  if (expr.startsWith('secret:') || expr.startsWith('secret-file:')) return { ok: true, value: `{{${expr}}}` };
  const bar = expr.indexOf('|');
  const path = (bar < 0 ? expr : expr.slice(0, bar)).trim();
  const hit = lookupPath(scope, path);
  if (hit.found) return { ok: true, value: hit.value };
  if (bar < 0) return { ok: false, error: `template path "${path}" is not set (no default given)` };
  const fallback = expr.slice(bar + 1).trim();
  try {
    return { ok: true, value: JSON.parse(fallback) };
  } catch {
    return { ok: true, value: fallback.replace(/^['"]|['"]$/g, '') };
  }
}

function interpolated(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Renders one string: `CEL: …` evaluates, a sole placeholder keeps its type, else text interpolation. */
export function renderString(text: string, scope: Readonly<Record<string, unknown>>): Rendered {
  if (isCelString(text)) return evalCel(text, scope);
  const sole = SOLE.exec(text);
  if (sole?.[1] !== undefined) return placeholder(sole[1], scope);
  const source: string = text;
  let error: string | null = null;
  const out = source.replace(PLACEHOLDER, (_m: string, expr: string) => {
    const got = placeholder(expr, scope);
    if (!got.ok) {
      error ??= got.error;
      return '';
    }
    return interpolated(got.value);
  });
  return error === null ? { ok: true, value: out } : { ok: false, error };
}

/** Renders every string inside `value` (objects and arrays recursively); the first error wins. */
export function renderValue(value: unknown, scope: Readonly<Record<string, unknown>>): Rendered {
  if (typeof value === 'string') return renderString(value, scope);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const got = renderValue(item, scope);
      if (!got.ok) return got;
      out.push(got.value);
    }
    return { ok: true, value: out };
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const got = renderValue(v, scope);
      if (!got.ok) return got;
      out[k] = got.value;
    }
    return { ok: true, value: out };
  }
  return { ok: true, value };
}
