// The nested control kinds (producers reference §2.4, §2.8 Nested): foreach, batch, iterate, parallel, race,
// subgraph. Each only plans its instances (what `item` is, how many, how many at once) and suspends; nestMoves.ts
// opens and settles them and decides the result, so their progress is saved with the run like any wait.

import { parseRate } from '../../config/subagentKeys.js';
import type { NestProgress, StepWait } from '../../domain/workflow.js';
import { parseWorkflowDuration } from '../durations.js';
import { failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';
import { REDUCERS } from '../reducers.js';
import { lookupPath } from '../templates.js';

/** `limits.workflow.fan_out`'s default: the most instances of one nested step open at once. */
export const DEFAULT_FAN_OUT = 8;
const MAX_ITERATIONS = 10_000;
const NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const RATE_SHAPE = 'batch.rate must be <count>/<duration>, e.g. 10/1m';

const deferred = (v: unknown): boolean => typeof v === 'string' && (v.includes('{{') || v.startsWith('CEL:'));

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** `over` as items: an array; an object as `[{key, value}]`; null as `[]` (reference §2.8). */
function itemsOf(kind: string, over: unknown): { ok: true; items: unknown[] } | { ok: false; error: string } {
  if (Array.isArray(over)) return { ok: true, items: over };
  if (over === null || over === undefined) return { ok: true, items: [] };
  if (typeof over === 'object')
    return { ok: true, items: Object.entries(over as Record<string, unknown>).map(([key, value]) => ({ key, value })) };
  return { ok: false, error: `${kind}: over must be an array (got ${typeName(over)})` };
}

/** A positive integer field (absent: `fallback`), or why not. */
function count(
  kind: string,
  name: string,
  value: unknown,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number | string {
  if (value === undefined || value === null) return fallback;
  if (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= max) return value as number;
  return `${kind}.${name} must be an integer from 1 to ${max} (got ${JSON.stringify(value)})`;
}

function countProblem(kind: string, name: string, value: unknown, max?: number): string[] {
  if (deferred(value)) return [];
  const got = count(kind, name, value, 1, max);
  return typeof got === 'string' ? [got] : [];
}

function collectProblems(kind: string, collect: unknown, allowTrue: boolean): string[] {
  if (collect === undefined || (allowTrue && typeof collect === 'boolean')) return [];
  const shape = allowTrue ? 'true or {into, mode}' : '{into, mode}';
  if (collect === null || typeof collect !== 'object' || Array.isArray(collect))
    return [`${kind}.collect must be ${shape}`];
  const { into, mode, ...rest } = collect as Record<string, unknown>;
  const problems = Object.keys(rest).map((k) => `unknown ${kind}.collect field "${k}" (allowed: into, mode)`);
  if (typeof into !== 'string' || !NAME.test(into)) problems.push(`${kind}.collect.into must be a variable name`);
  if (mode !== undefined && !(REDUCERS as readonly unknown[]).includes(mode))
    problems.push(`${kind}.collect.mode must be one of ${REDUCERS.join('|')}`);
  return problems;
}

/** The nested wait: no instance open yet, due at the step's timeout (or `due`) when it has one. */
function nest(
  ctx: StepContext,
  progress: Omit<NestProgress, 'next' | 'open' | 'results' | 'errors'>,
  due?: number | null,
): StepResult {
  const timeout = due ?? ctx.step.timeoutMs;
  const wait: StepWait = {
    kind: 'nest',
    dueMs: timeout === null ? null : ctx.now + timeout,
    nest: { ...progress, next: 0, open: [], results: [], errors: [] },
  };
  return { type: 'suspend', wait };
}

const fanOut = (ctx: StepContext): number => ctx.ports.fanOut ?? DEFAULT_FAN_OUT;
const within = (ctx: StepContext, n: number): number => Math.max(1, Math.min(n, fanOut(ctx)));

function runForeach(ctx: StepContext): StepResult {
  const items = itemsOf('foreach', ctx.spec['over']);
  if (!items.ok) return failed(items.error);
  const batch = count('foreach', 'batch', ctx.spec['batch'], 1);
  if (typeof batch === 'string') return failed(batch);
  return nest(ctx, { items: items.items, total: items.items.length, window: within(ctx, batch) });
}

/** Batch groups: by `by` (a dotted path in each item, first-seen order), else chunks of `size`. */
function groups(items: unknown[], by: unknown, size: number): Array<{ key: unknown; items: unknown[] }> {
  if (typeof by !== 'string') {
    const out: Array<{ key: unknown; items: unknown[] }> = [];
    for (let i = 0; i < items.length; i += size) out.push({ key: null, items: items.slice(i, i + size) });
    return out;
  }
  const byKey = new Map<string, { key: unknown; items: unknown[] }>();
  for (const item of items) {
    const key = lookupPath(item, by).value ?? null;
    const id = JSON.stringify(key);
    const group = byKey.get(id) ?? { key, items: [] };
    group.items.push(item);
    byKey.set(id, group);
  }
  return [...byKey.values()];
}

function runBatch(ctx: StepContext): StepResult {
  const items = itemsOf('batch', ctx.spec['over']);
  if (!items.ok) return failed(items.error);
  const size = count('batch', 'size', ctx.spec['size'], 10);
  const parallel = count('batch', 'parallel', ctx.spec['parallel'], 4);
  if (typeof size === 'string' || typeof parallel === 'string')
    return failed(String(typeof size === 'string' ? size : parallel));
  const batches = groups(items.items, ctx.spec['by'], size);
  const progress = { items: batches, total: batches.length, window: within(ctx, parallel) };
  if (ctx.spec['rate'] === undefined) return nest(ctx, progress);
  const rate = parseRate(String(ctx.spec['rate']));
  if (rate === null) return failed(RATE_SHAPE);
  return nest(ctx, { ...progress, spacingMs: Math.ceil(rate.periodMs / rate.burst) });
}

function runIterate(ctx: StepContext): StepResult {
  const max = count('iterate', 'max_iterations', ctx.spec['max_iterations'], MAX_ITERATIONS, MAX_ITERATIONS);
  if (typeof max === 'string') return failed(max);
  return nest(ctx, { total: max, window: 1 });
}

function runBranches(ctx: StepContext): StepResult {
  const labels = Object.keys(ctx.step.branches ?? {});
  let due: number | null | undefined;
  if (ctx.step.kind !== 'race') return nest(ctx, { labels, total: labels.length, window: within(ctx, labels.length) });
  if (ctx.spec['timeout'] !== undefined) {
    const timeout = parseWorkflowDuration(ctx.spec['timeout']);
    if (!timeout.ok) return failed(`race: timeout: ${timeout.error}`);
    due = timeout.ms;
  }
  const need = count('race', 'min_success', ctx.spec['min_success'], 1, labels.length);
  if (typeof need === 'string') return failed(need);
  return nest(ctx, { labels, total: labels.length, window: within(ctx, labels.length), need }, due);
}

const BODY = {
  required: true,
  raw: true,
  doc: "The steps of one instance: a mapping of step id → step (no start node, no finish; deps only among them). Its result is its single sink's output, or an object keyed by sink id.",
};
const BRANCHES = { required: true, raw: true, doc: 'Branch name → its steps (a body).' };
const ON_ERROR_ELEMENT = {
  doc: "What an element's failure does: fail (default: the step fails `element <i> failed: <e>`, the others cancelled) | continue / goto:<step> (its slot holds `{index, error}`).",
};
const COLLECT = {
  doc: '`{into, mode}`: also writes the results to `vars.<into>` with the reducer `mode` (default overwrite).',
};

export const NEST_KINDS: readonly NodeKind[] = [
  {
    name: 'foreach',
    category: 'control',
    implemented: true,
    doc: 'Runs `body` once per element of `over` (an array; an object is `[{key, value}]`; null is `[]`), `batch` elements at a time (default 1, at most `limits.workflow.fan_out`). The body sees `item` (or the `as` name) and `index`; its steps run as `<step>[<i>].<body step>`. Output: the results by position. A finished element is never re-run after a restart.',
    fields: {
      over: { required: true, doc: 'The items (template or `CEL:`).' },
      body: BODY,
      batch: { doc: 'Elements running at once (default 1; clamped to `limits.workflow.fan_out`).' },
      collect: COLLECT,
      on_error: ON_ERROR_ELEMENT,
      as: { doc: 'Another name for `item` in the body.' },
    },
    check: (f) => [
      ...countProblem('foreach', 'batch', f['batch']),
      ...collectProblems('foreach', f['collect'], false),
      ...(f['as'] === undefined || (typeof f['as'] === 'string' && NAME.test(f['as']))
        ? []
        : ['foreach.as must be a name']),
    ],
    run: runForeach,
  },
  {
    name: 'batch',
    category: 'control',
    implemented: true,
    doc: "Runs `body` once per batch of `over`: chunks of `size` (default 10), or one group per value of the dotted key `by`; `parallel` batches at a time (default 4, at most `limits.workflow.fan_out`); `rate` spaces batch starts. The body sees `item` (the batch's items), `index` and `batch {index, key, items}`. Output: the results by batch.",
    fields: {
      over: { required: true, doc: 'The items (template or `CEL:`).' },
      body: BODY,
      by: { doc: 'A dotted key in each item: one batch per value, in first-seen order.' },
      size: { doc: 'Items per batch (default 10; ignored with `by`).' },
      parallel: { doc: 'Batches running at once (default 4; clamped to `limits.workflow.fan_out`).' },
      rate: {
        doc: '`<count>/<duration>` (e.g. `2/1s`): batch starts are spaced by duration / count (here 500 ms), also across a restart (the next start time is saved with the run).',
      },
      collect: COLLECT,
      on_error: ON_ERROR_ELEMENT,
    },
    check: (f) => [
      ...countProblem('batch', 'size', f['size']),
      ...countProblem('batch', 'parallel', f['parallel']),
      ...(f['by'] === undefined || typeof f['by'] === 'string' ? [] : ['batch.by must be a dotted key']),
      ...collectProblems('batch', f['collect'], false),
      ...(f['rate'] === undefined || deferred(f['rate']) || parseRate(String(f['rate'])) !== null ? [] : [RATE_SHAPE]),
    ],
    run: runBatch,
  },
  {
    name: 'iterate',
    category: 'control',
    implemented: true,
    doc: 'Runs `body` again and again: `while` (CEL, checked before each iteration, sees `iteration` and `previous`) and `until` (CEL, checked after, sees `iteration` and `result`), at most `max_iterations` (default and cap 10 000). The body sees `iteration` and `previous` (the last result). Output: the last result, or every result with `collect`.',
    fields: {
      body: BODY,
      while: { raw: true, doc: 'CEL predicate before each iteration; false stops.' },
      until: { raw: true, doc: 'CEL predicate after each iteration; true stops.' },
      max_iterations: { doc: 'Most iterations (≤ 10 000).' },
      collect: { doc: '`true`: output every result; `{into, mode}`: that, also written to `vars.<into>`.' },
    },
    check: (f) => [
      ...countProblem('iterate', 'max_iterations', f['max_iterations'], MAX_ITERATIONS),
      ...collectProblems('iterate', f['collect'], true),
    ],
    run: runIterate,
  },
  {
    name: 'parallel',
    category: 'control',
    implemented: true,
    doc: 'Runs every branch at once (at most `limits.workflow.fan_out` open). The body sees `branch`. Output: an object keyed by branch with `_errors` (branch → error). A failed branch fails the step `branch <b> failed: <e>` (the others cancelled) unless `on_error` is continue or goto.',
    fields: {
      branches: BRANCHES,
      on_error: { doc: 'fail (default) | continue | goto:<step>: whether a failed branch fails the step.' },
    },
    run: runBranches,
  },
  {
    name: 'race',
    category: 'control',
    implemented: true,
    doc: 'Runs every branch at once; the first to succeed wins: output `{winner, output}`, the others cancelled — their steps stop, and a sync child run a losing branch started (a `workflow` step, also inside a `subgraph`) is cancelled (`its parent step "<step>" was cancelled`) unless that step says `cascade: false`. With `min_success: N` the race is won once N branches succeeded: output `{winner, output, winners, outputs}` (`winners` in the order they succeeded, `outputs` keyed by branch), the rest cancelled; once fewer than N can still succeed it fails `race: min_success <N> cannot be reached (<k> of <n> failed): <b>: <e>; …`. Every branch failing ⇒ `race: every branch failed: <b>: <e>; …`; `timeout` passing first ⇒ `race: no branch finished in time` (or `race: <k> of min_success <N> branches succeeded in time`), a timeout.',
    fields: {
      branches: BRANCHES,
      timeout: { doc: 'How long the race may take (a duration).' },
      min_success: { doc: 'How many branches must succeed (default 1; at most the number of branches).' },
    },
    check: (f) => {
      const branches = f['branches'];
      const total = branches !== null && typeof branches === 'object' ? Object.keys(branches).length : 1;
      const problems = countProblem('race', 'min_success', f['min_success'], Math.max(1, total));
      const timeout = f['timeout'] === undefined || deferred(f['timeout']) ? null : parseWorkflowDuration(f['timeout']);
      if (timeout && !timeout.ok) problems.push(`race.timeout: ${timeout.error}`);
      return problems;
    },
    run: runBranches,
  },
  {
    name: 'subgraph',
    category: 'control',
    implemented: true,
    doc: 'Runs `body` once, as a group: its steps run as `<step>.<body step>`; output = its result; a failed body step fails the step.',
    fields: { body: BODY },
    run: (ctx) => nest(ctx, { total: 1, window: 1 }),
  },
];
