// Scoped steps of nested kinds (producers reference §2.8 Nested): body steps live in the run record as
// `<parent>[<i>].<step>` (foreach, batch, iterate), `<parent>{<branch>}.<step>` (parallel, race) or `<parent>.<step>`
// (subgraph). This module maps those ids to their definitions, instances and scope variables. Pure.
import type { NestProgress, StepDef, WorkflowDef, WorkflowRun } from '../domain/workflow.js';

/** Kinds whose instances are numbered `[i]`; branch kinds use `{name}`; subgraph has one unnamed instance. */
const NUMBERED = new Set(['foreach', 'batch', 'iterate']);
const BRANCHED = new Set(['parallel', 'race']);
export const NESTED_KINDS: ReadonlySet<string> = new Set([...NUMBERED, ...BRANCHED, 'subgraph']);

const SEGMENT = /^([A-Za-z_][\w-]*)(?:\[(\d+)\]|\{([^}]+)\})?$/;

/** Resolved scoped ids per definition (a run keeps its definition object for its life). */
const RESOLVED = new WeakMap<object, Map<string, StepDef | undefined>>();

function resolve(steps: Readonly<Record<string, StepDef>>, id: string): StepDef | undefined {
  const segments = id.split('.');
  let at: Readonly<Record<string, StepDef>> | undefined = steps;
  for (const segment of segments.slice(0, -1)) {
    const match = SEGMENT.exec(segment);
    const step: StepDef | undefined = match?.[1] === undefined ? undefined : at?.[match[1]];
    at = match?.[3] !== undefined ? step?.branches?.[match[3]] : step?.body;
    if (at === undefined) return undefined;
  }
  const own = at[segments[segments.length - 1] ?? ''];
  return own === undefined || segments.length === 1 ? own : { ...own, id };
}

/** The definition of step `id`, top-level or scoped (then with `id` the scoped id, so keys and events use it). */
export function stepDefAt(def: Pick<WorkflowDef, 'steps'>, id: string): StepDef | undefined {
  let cache = RESOLVED.get(def.steps);
  if (cache === undefined) {
    cache = new Map();
    RESOLVED.set(def.steps, cache);
  }
  if (!cache.has(id)) cache.set(id, id.includes('.') ? resolve(def.steps, id) : def.steps[id]);
  return cache.get(id);
}

/** The prefix a step's siblings share: `''` at top level, `p[3].` inside an instance. */
export function siblingPrefix(id: string): string {
  const dot = id.lastIndexOf('.');
  return dot < 0 ? '' : id.slice(0, dot + 1);
}

/** Instance `index` of nested step `parent` as an id prefix (without the trailing dot). */
export function instanceId(parent: StepDef, parentId: string, nest: NestProgress, index: number): string {
  if (NUMBERED.has(parent.kind)) return `${parentId}[${index}]`;
  if (BRANCHED.has(parent.kind)) return `${parentId}{${nest.labels?.[index] ?? index}}`;
  return parentId;
}

/** The steps one instance of `parent` runs. */
export function instanceBody(parent: StepDef, nest: NestProgress, index: number): Readonly<Record<string, StepDef>> {
  if (BRANCHED.has(parent.kind)) return parent.branches?.[nest.labels?.[index] ?? ''] ?? {};
  return parent.body ?? {};
}

export interface LiveInstance {
  parent: string;
  index: number;
  /** `<instance id>.`: what its steps' ids start with. */
  prefix: string;
  body: Readonly<Record<string, StepDef>>;
}

/** Every open instance of every nested step in flight, outermost first. */
export function liveInstances(run: Readonly<WorkflowRun>): LiveInstance[] {
  const out: LiveInstance[] = [];
  for (const [id, state] of Object.entries(run.steps)) {
    const nest = state.wait?.nest;
    if (state.status !== 'suspended' || nest === undefined) continue;
    const parent = stepDefAt(run.definition, id);
    if (parent === undefined) continue;
    for (const index of nest.open)
      out.push({
        parent: id,
        index,
        prefix: `${instanceId(parent, id, nest, index)}.`,
        body: instanceBody(parent, nest, index),
      });
  }
  return out.sort((a, b) => a.prefix.length - b.prefix.length || a.prefix.localeCompare(b.prefix));
}

/** What one instance's steps see besides the run scope: `item` (or its alias), `index`, `batch`, `iteration`, … */
function instanceVars(parent: StepDef, nest: NestProgress, index: number): Record<string, unknown> {
  switch (parent.kind) {
    case 'foreach': {
      const alias = typeof parent.fields['as'] === 'string' ? parent.fields['as'] : 'item';
      return { [alias]: nest.items?.[index] ?? null, item: nest.items?.[index] ?? null, index };
    }
    case 'batch': {
      const group = nest.items?.[index] as { key?: unknown; items?: unknown[] } | undefined;
      return { item: group?.items ?? [], index, batch: { index, key: group?.key ?? null, items: group?.items ?? [] } };
    }
    case 'iterate':
      return { iteration: index, index, previous: index > 0 ? (nest.results[index - 1] ?? null) : null };
    case 'parallel':
    case 'race':
      return { branch: nest.labels?.[index] ?? null };
    default:
      return {};
  }
}

/**
 * The body variables and sibling `steps` step `id` sees: for each enclosing instance, outermost first, its
 * variables and its direct steps (an inner name shadows an outer one). Empty for a top-level step.
 */
export function scopedView(
  run: Readonly<WorkflowRun>,
  id: string,
): { vars: Record<string, unknown>; prefixes: string[] } {
  const vars: Record<string, unknown> = {};
  const prefixes: string[] = [];
  const segments = id.split('.');
  let path = '';
  for (const segment of segments.slice(0, -1)) {
    const match = SEGMENT.exec(segment);
    const parentId = `${path}${match?.[1] ?? segment}`;
    const parent = stepDefAt(run.definition, parentId);
    const nest = run.steps[parentId]?.wait?.nest;
    if (parent !== undefined && nest !== undefined) {
      const index =
        match?.[2] !== undefined
          ? Number(match[2])
          : match?.[3] !== undefined
            ? (nest.labels ?? []).indexOf(match[3])
            : 0;
      Object.assign(vars, instanceVars(parent, nest, index));
    }
    path = `${path}${segment}.`;
    prefixes.push(path);
  }
  return { vars, prefixes };
}
