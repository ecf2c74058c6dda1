// Data kinds over lists (producers reference §2.4, §2.8): map, filter, reduce, sort, dedupe, chunk. `expr` is CEL
// evaluated per item with `item` (or the `as` alias) and `index` beside the run scope.
import { compileCel, evalPredicate } from '../../expr/cel.js';
import { done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';
import { lookupPath } from '../templates.js';

/** `over` as a list: an object becomes `[{key, value}]`, null `[]` (reference §2.8). */
export function overList(kind: string, over: unknown): { ok: true; items: unknown[] } | { ok: false; error: string } {
  if (Array.isArray(over)) return { ok: true, items: over };
  if (over === null || over === undefined) return { ok: true, items: [] };
  if (typeof over === 'object')
    return { ok: true, items: Object.entries(over).map(([key, value]) => ({ key, value })) };
  return { ok: false, error: `${kind}: over must be an array (got ${JSON.stringify(over)})` };
}

type ItemFn = (
  item: unknown,
  index: number,
  extra?: Record<string, unknown>,
) => { ok: true; value: unknown } | { ok: false; error: string };

/** Compiles `expr` once and evaluates it per item; `predicate` insists on a bool. */
function itemEvaluator(ctx: StepContext, predicate: boolean): ItemFn | string {
  const compiled = compileCel(String(ctx.step.fields['expr']));
  if (!compiled.ok) return `${ctx.step.kind}: ${compiled.error}`;
  const alias = typeof ctx.spec['as'] === 'string' ? ctx.spec['as'] : 'item';
  return (item, index, extra) => {
    const vars = { ...ctx.scope, item, [alias]: item, index, ...extra };
    return predicate ? evalPredicate(compiled.program, vars) : compiled.program.eval(vars);
  };
}

function eachItem(
  ctx: StepContext,
  predicate: boolean,
  fold: (items: unknown[], fn: ItemFn) => StepResult,
): StepResult {
  const list = overList(ctx.step.kind, ctx.spec['over']);
  if (!list.ok) return failed(list.error);
  const fn = itemEvaluator(ctx, predicate);
  return typeof fn === 'string' ? failed(fn) : fold(list.items, fn);
}

const EXPR = { required: true, raw: true, doc: 'CEL over `item` (or the `as` alias), `index` and the run scope.' };
const OVER = { required: true, doc: 'The list (an object is taken as `[{key, value}]`).' };
const AS = { doc: 'Name for the item (default `item`).' };

function mapItems(items: unknown[], fn: ItemFn): StepResult {
  const out: unknown[] = [];
  for (const [i, item] of items.entries()) {
    const got = fn(item, i);
    if (!got.ok) return failed(`map: element ${i}: ${got.error}`);
    out.push(got.value);
  }
  return done(out);
}

function filterItems(items: unknown[], fn: ItemFn): StepResult {
  const out: unknown[] = [];
  for (const [i, item] of items.entries()) {
    const got = fn(item, i);
    if (!got.ok) return failed(`filter: element ${i}: ${got.error}`);
    if (got.value === true) out.push(item);
  }
  return done(out);
}

function keyOf(item: unknown, by: unknown): unknown {
  return typeof by === 'string' && by !== '' ? lookupPath(item, by).value : item;
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(JSON.stringify(a)).localeCompare(String(JSON.stringify(b)));
}

export const LIST_KINDS: readonly NodeKind[] = [
  {
    name: 'map',
    category: 'data',
    implemented: true,
    doc: 'Evaluates `expr` for every item; output the list of results.',
    fields: { over: OVER, expr: EXPR, as: AS },
    run: (ctx) => eachItem(ctx, false, mapItems),
  },
  {
    name: 'filter',
    category: 'data',
    implemented: true,
    doc: 'Keeps the items for which the predicate `expr` is true.',
    fields: { over: OVER, expr: EXPR, as: AS },
    run: (ctx) => eachItem(ctx, true, filterItems),
  },
  {
    name: 'reduce',
    category: 'data',
    implemented: true,
    doc: 'Folds the list: `expr` sees the accumulator as `acc` (or the `acc` alias), starting from `initial`.',
    fields: {
      over: OVER,
      expr: EXPR,
      initial: { doc: 'The first accumulator (default null).' },
      as: AS,
      acc: { doc: 'Name for the accumulator (default `acc`).' },
    },
    run: (ctx) =>
      eachItem(ctx, false, (items, fn) => {
        const accName = typeof ctx.spec['acc'] === 'string' ? ctx.spec['acc'] : 'acc';
        let acc: unknown = ctx.spec['initial'] ?? null;
        for (const [i, item] of items.entries()) {
          const got = fn(item, i, { [accName]: acc });
          if (!got.ok) return failed(`reduce: element ${i}: ${got.error}`);
          acc = got.value;
        }
        return done(acc);
      }),
  },
  {
    name: 'sort',
    category: 'data',
    implemented: true,
    doc: 'Sorts the list by the dotted path `by` (the item itself when absent), `order` asc (default) or desc.',
    fields: { over: OVER, by: { doc: 'Dotted path inside each item.' }, order: { doc: 'asc | desc.' } },
    check: (f) =>
      f['order'] === undefined || f['order'] === 'asc' || f['order'] === 'desc'
        ? []
        : ['sort.order must be asc or desc'],
    run: ({ spec }) => {
      const list = overList('sort', spec['over']);
      if (!list.ok) return failed(list.error);
      const sign = spec['order'] === 'desc' ? -1 : 1;
      return done([...list.items].sort((a, b) => sign * compareValues(keyOf(a, spec['by']), keyOf(b, spec['by']))));
    },
  },
  {
    name: 'dedupe',
    category: 'data',
    implemented: true,
    doc: 'Drops items whose `by` key (or whole value) was seen before; the first one stays.',
    fields: { over: OVER, by: { doc: 'Dotted path inside each item.' } },
    run: ({ spec }) => {
      const list = overList('dedupe', spec['over']);
      if (!list.ok) return failed(list.error);
      const seen = new Set<string>();
      return done(
        list.items.filter((item) => {
          const key = JSON.stringify(keyOf(item, spec['by']) ?? null);
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        }),
      );
    },
  },
  {
    name: 'chunk',
    category: 'data',
    implemented: true,
    doc: 'Splits a string (by characters) or a list into pieces of `size`, each overlapping the last by `overlap`.',
    fields: {
      value: { required: true, doc: 'A string or a list.' },
      size: { required: true, doc: 'Piece size (≥ 1).' },
      by: { doc: 'Only `chars` is built.' },
      overlap: { doc: 'Overlap (< size).' },
    },
    check: (f) =>
      f['by'] === undefined || f['by'] === 'chars' ? [] : ['chunk.by: only "chars" is implemented in this build'],
    run: ({ spec }) => {
      const size = Number(spec['size']);
      const overlap = Number(spec['overlap'] ?? 0);
      if (!Number.isInteger(size) || size < 1 || !(overlap >= 0 && overlap < size))
        return failed('chunk: size must be an integer ≥ 1 and overlap in [0, size)');
      const value = spec['value'];
      if (typeof value !== 'string' && !Array.isArray(value)) return failed('chunk: value must be a string or a list');
      const pieces: unknown[] = [];
      for (let at = 0; at < value.length; at += size - overlap) {
        pieces.push(value.slice(at, at + size));
        if (at + size >= value.length) break;
      }
      return done(pieces);
    },
  },
];
