// A dialect-3 workflow document → a validated definition, or every problem with the reference's texts
// (producers reference §2.2, §2.3). Pure: the hash is added by definitions.ts.
import type { StepDef, WorkflowDef } from '../domain/workflow.js';
import { parseWorkflowDuration } from './durations.js';
import { graphProblems } from './graph.js';
import { schemaCompileProblem } from './jsonSchema.js';
import { parseStep } from './stepParse.js';

const NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
const TOP_KEYS = new Set([
  'name',
  'version',
  'description',
  'armed',
  'inputs',
  'outputs',
  'concurrency',
  'limits',
  'priority',
  'state',
  'steps',
  'file',
  'uri',
]);
const MAX_STEPS = 512;

export type ParsedWorkflow = { ok: true; def: Omit<WorkflowDef, 'hash'> } | { ok: false; errors: string[] };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `inputs`/`outputs`: `{schema}`, or a bare schema (an object with `type`/`properties`). */
function schemaOf(raw: unknown, key: string, problems: string[]): Record<string, unknown> | null {
  if (raw === undefined || raw === null) return null;
  const schema =
    isObject(raw) && isObject(raw['schema']) && Object.keys(raw).length === 1
      ? raw['schema']
      : isObject(raw) && ('type' in raw || 'properties' in raw)
        ? raw
        : null;
  if (schema === null) {
    problems.push(`${key} must be {schema: …}`);
    return null;
  }
  const problem = schemaCompileProblem(schema);
  if (problem !== null) problems.push(`${key}.schema: ${problem}`);
  return schema;
}

function concurrency(raw: unknown, problems: string[]): WorkflowDef['concurrency'] {
  const out: WorkflowDef['concurrency'] = { maxRuns: 4, onOverflow: 'queue' };
  if (raw === undefined) return out;
  if (!isObject(raw)) {
    problems.push('concurrency must be {max_runs, on_overflow}');
    return out;
  }
  for (const key of Object.keys(raw))
    if (key !== 'max_runs' && key !== 'on_overflow')
      problems.push(`unknown concurrency field "${key}" (allowed: max_runs, on_overflow)`);
  if (raw['max_runs'] !== undefined) {
    if (Number.isInteger(raw['max_runs'])) out.maxRuns = Math.min(1024, Math.max(1, raw['max_runs'] as number));
    else problems.push('concurrency.max_runs must be an integer');
  }
  const overflow = raw['on_overflow'];
  if (overflow === 'queue' || overflow === 'drop' || overflow === 'replace') out.onOverflow = overflow;
  else if (overflow !== undefined) problems.push('concurrency.on_overflow must be queue, drop or replace');
  return out;
}

function limits(raw: unknown, problems: string[]): WorkflowDef['limits'] {
  const out: WorkflowDef['limits'] = { steps: null, tokens: null, deadlineMs: null };
  if (raw === undefined) return out;
  if (!isObject(raw)) {
    problems.push('limits must be {steps, tokens, deadline}');
    return out;
  }
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'steps' || key === 'tokens') {
      if (Number.isInteger(value) && (value as number) > 0) out[key] = value as number;
      else problems.push(`limits.${key} must be a positive integer`);
    } else if (key === 'deadline') {
      const parsed = parseWorkflowDuration(value);
      if (parsed.ok) out.deadlineMs = parsed.ms;
      else problems.push(`limits.deadline: ${parsed.error}`);
    } else problems.push(`unknown limits field "${key}" (allowed: steps, tokens, deadline)`);
  }
  return out;
}

function steps(raw: unknown, name: string, errors: string[]): Record<string, StepDef> {
  const out: Record<string, StepDef> = {};
  if (!isObject(raw) || Object.keys(raw).length === 0) {
    errors.push(`workflow "${name}": steps is required (a mapping of step ids)`);
    return out;
  }
  if (Object.keys(raw).length > MAX_STEPS) errors.push(`workflow "${name}": more than ${MAX_STEPS} steps`);
  const ids = new Set(Object.keys(raw));
  for (const [id, spec] of Object.entries(raw)) {
    const parsed = parseStep(id, spec, ids);
    for (const problem of parsed.problems) errors.push(`workflow "${name}" step "${id}": ${problem}`);
    if (parsed.step) out[id] = parsed.step;
  }
  return out;
}

/** Validates one document; every problem found, each naming the workflow (and the step). */
export function parseWorkflowDocument(doc: unknown): ParsedWorkflow {
  if (!isObject(doc)) return { ok: false, errors: ['a workflow must be a mapping'] };
  const name = typeof doc['name'] === 'string' && NAME.test(doc['name']) ? doc['name'] : null;
  if (name === null)
    return {
      ok: false,
      errors: [`workflow name must match [a-zA-Z_][a-zA-Z0-9_-]{0,63} (got ${JSON.stringify(doc['name'] ?? null)})`],
    };
  const top: string[] = [];
  if ('start' in doc || 'nodes' in doc)
    top.push('a `start` or `nodes` key is dialect 1/2; only dialect 3 documents are accepted');
  for (const key of Object.keys(doc))
    if (!TOP_KEYS.has(key) && key !== 'start' && key !== 'nodes') top.push(`unknown workflow field "${key}"`);
  if (doc['version'] !== undefined && doc['version'] !== 3)
    top.push(
      `version ${JSON.stringify(doc['version'])} is not dialect 3 (dialect 1/2 documents are refused — see docs/workflows.md §migration)`,
    );
  if (doc['state'] !== undefined) top.push('state (declared run variables) is not implemented in this build');
  const priority = doc['priority'] ?? 'normal';
  if (priority !== 'low' && priority !== 'normal' && priority !== 'high')
    top.push('priority must be low, normal or high');
  const def: Omit<WorkflowDef, 'hash'> = {
    name,
    description: typeof doc['description'] === 'string' ? doc['description'] : '',
    armed: doc['armed'] !== false,
    inputsSchema: schemaOf(doc['inputs'], 'inputs', top),
    outputsSchema: schemaOf(doc['outputs'], 'outputs', top),
    concurrency: concurrency(doc['concurrency'], top),
    limits: limits(doc['limits'], top),
    priority: priority as WorkflowDef['priority'],
    steps: {},
  };
  const errors = top.map((p) => `workflow "${name}": ${p}`);
  def.steps = steps(doc['steps'], name, errors);
  if (errors.length === 0)
    errors.push(
      ...graphProblems(def.steps).map((p) =>
        p.startsWith('step "') ? `workflow "${name}" ${p}` : `workflow "${name}": ${p}`,
      ),
    );
  return errors.length === 0 ? { ok: true, def } : { ok: false, errors };
}
