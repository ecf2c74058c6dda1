// One step of a dialect-3 document (producers reference §2.3): common fields parsed, the kind's own fields
// checked strictly (unknown and missing fields are errors with the reference's texts). Pure.
import type { OnError, StepDef } from '../domain/workflow.js';
import { compileCel } from '../expr/cel.js';
import { parseWorkflowDuration } from './durations.js';
import { jumpTargets, topoOrder } from './graph.js';
import { schemaCompileProblem } from './jsonSchema.js';
import { COMMON_FIELDS, isStartKind, nodeKind, REFUSED_COMMON } from './nodeKinds.js';
import { parseCache } from './stepCache.js';

const MAX_RETRY = 20;
/** Bodies nest at most this deep (reference §2.3). */
const MAX_NESTING = 4;
/** Kinds whose instances run side by side: a `human` gate inside one is refused (reference §2.3). */
const FANNED = new Set(['foreach', 'batch', 'parallel', 'race']);
const STEP_ID = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

type Parsed = { step: StepDef | null; problems: string[] };

function dependsOn(raw: unknown, problems: string[]): string[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw) && raw.every((d) => typeof d === 'string')) return raw as string[];
  problems.push('depends_on must be a step id or a list of step ids');
  return [];
}

function retry(raw: unknown, problems: string[]): StepDef['retry'] {
  if (raw === undefined) return { max: 0, backoffMs: 0 };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push('retry must be {max, backoff}');
    return { max: 0, backoffMs: 0 };
  }
  const { max, backoff, ...rest } = raw as Record<string, unknown>;
  for (const key of Object.keys(rest)) problems.push(`unknown retry field "${key}" (allowed: max, backoff)`);
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 0))
    problems.push('retry.max must be an integer ≥ 0');
  const parsed = backoff === undefined ? { ok: true as const, ms: 0 } : parseWorkflowDuration(backoff);
  if (!parsed.ok) problems.push(`retry.backoff: ${parsed.error}`);
  return { max: Math.min(Number(max ?? 0) || 0, MAX_RETRY), backoffMs: parsed.ok ? parsed.ms : 0 };
}

function onError(raw: unknown, problems: string[]): OnError {
  if (raw === undefined || raw === 'fail') return { kind: 'fail' };
  if (raw === 'continue') return { kind: 'continue' };
  if (typeof raw === 'string' && raw.startsWith('goto:') && raw.length > 5)
    return { kind: 'goto', target: raw.slice(5) };
  problems.push('on_error must be fail, continue or goto:<step>');
  return { kind: 'fail' };
}

function onReplay(raw: unknown, problems: string[]): StepDef['onReplay'] {
  if (raw === undefined) return 'retry';
  if (raw === 'retry' || raw === 'skip' || raw === 'fail') return raw;
  problems.push('on_replay must be retry, skip or fail');
  return 'retry';
}

/** Every CEL string in the kind's fields compiles at load (reference §2.3). */
function celProblems(value: unknown, path: string, problems: string[]): void {
  if (typeof value === 'string' && value.startsWith('CEL:')) {
    const compiled = compileCel(value);
    if (!compiled.ok) problems.push(`${path}: ${compiled.error}`);
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) celProblems(v, `${path}[${i}]`, problems);
  } else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) celProblems(v, `${path}.${k}`, problems);
}

function kindProblems(
  raw: Record<string, unknown>,
  kindName: string,
  fields: Record<string, unknown>,
  ids: ReadonlySet<string>,
): string[] {
  const kind = nodeKind(kindName);
  if (kind === undefined) return [`unknown kind "${kindName}"`];
  const problems: string[] = [];
  const own = Object.keys(kind.fields);
  for (const key of Object.keys(raw)) {
    if (key in kind.fields || key in COMMON_FIELDS) continue;
    if ((REFUSED_COMMON as readonly string[]).includes(key))
      problems.push(`field "${key}" is not implemented in this build`);
    else problems.push(`unknown field "${key}" for kind "${kindName}" (allowed: ${own.join(', ')})`);
  }
  for (const [name, spec] of Object.entries(kind.fields))
    if (spec.required && raw[name] === undefined) problems.push(`kind "${kindName}" requires field "${name}"`);
  if (problems.length > 0) return problems;
  if (!kind.implemented)
    return [`kind "${kindName}" is not implemented in this build (see docs/reference/workflow-nodes.md)`];
  for (const [name, spec] of Object.entries(kind.fields))
    if (spec.raw && typeof fields[name] === 'string' && name !== 'cases') {
      const compiled = compileCel(fields[name] as string);
      if (!compiled.ok) problems.push(`${name}: ${compiled.error}`);
      // Bodies and branches are parsed as steps (their CEL compiled there).
    } else if (name !== 'body' && name !== 'branches') celProblems(fields[name], name, problems);
  return [...problems, ...(kind.check?.(fields, ids) ?? [])];
}

/** Graph rules of a body (reference §2.3): no start node, no finish, sibling-only deps and gotos, acyclic. */
function bodyGraphProblems(steps: Readonly<Record<string, StepDef>>): string[] {
  const problems: string[] = [];
  for (const step of Object.values(steps)) {
    if (isStartKind(step.kind)) problems.push(`step "${step.id}": a body holds no start node`);
    if (step.kind === 'finish') problems.push(`step "${step.id}": a body holds no finish (its sinks are its result)`);
    for (const dep of [...step.dependsOn, ...jumpTargets(step)])
      if (dep === step.id || !(dep in steps))
        problems.push(`step "${step.id}": "${dep}" is not a sibling step of this body`);
  }
  if (problems.length > 0) return problems;
  const { cycle } = topoOrder(steps);
  return cycle.length > 0 ? [`cycle among steps [${cycle.join(', ')}]`] : [];
}

/** Parses one body (a mapping of step ids) `depth` levels down; problems prefixed with `where`. */
function parseBody(
  raw: unknown,
  where: string,
  depth: number,
  fanned: boolean,
): { steps: Record<string, StepDef>; problems: string[] } {
  const steps: Record<string, StepDef> = {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || Object.keys(raw).length === 0)
    return { steps, problems: [`${where} must be a non-empty mapping of step ids`] };
  if (depth > MAX_NESTING) return { steps, problems: [`${where}: bodies nest at most ${MAX_NESTING} deep`] };
  const ids = new Set(Object.keys(raw));
  const problems: string[] = [];
  for (const [id, spec] of Object.entries(raw)) {
    const parsed = parseStep(id, spec, ids, depth);
    problems.push(...parsed.problems.map((p) => `${where} step "${id}": ${p}`));
    if (parsed.step) steps[id] = parsed.step;
    if (fanned && parsed.step?.kind === 'human')
      problems.push(`${where} step "${id}": a human step cannot run inside foreach|batch|parallel|race`);
  }
  if (problems.length === 0) problems.push(...bodyGraphProblems(steps).map((p) => `${where}: ${p}`));
  return { steps, problems };
}

/** A nested kind's `body` and `branches`, parsed as steps onto `step`. */
function parseNested(step: StepDef, depth: number, problems: string[]): void {
  const fanned = FANNED.has(step.kind);
  // Only a nesting kind's `body` is steps (its field is raw); an `http` step's `body` is the request's.
  if (step.fields['body'] !== undefined && nodeKind(step.kind)?.fields['body']?.raw === true) {
    const body = parseBody(step.fields['body'], 'body', depth + 1, fanned);
    problems.push(...body.problems);
    step.body = body.steps;
  }
  const branches = step.fields['branches'];
  if (branches === undefined) return;
  if (
    branches === null ||
    typeof branches !== 'object' ||
    Array.isArray(branches) ||
    Object.keys(branches).length === 0
  ) {
    problems.push('branches must be a non-empty mapping of branch name → steps');
    return;
  }
  step.branches = {};
  for (const [name, raw] of Object.entries(branches)) {
    if (!STEP_ID.test(name)) problems.push(`branch names must match [a-zA-Z_][a-zA-Z0-9_-]{0,63} (got "${name}")`);
    const body = parseBody(raw, `branches.${name}`, depth + 1, fanned);
    problems.push(...body.problems);
    step.branches[name] = body.steps;
  }
}

/**
 * Parses step `id` of a document (or body, `depth` levels down) whose step ids are `ids`; problems come without the
 * workflow/step prefix.
 */
export function parseStep(id: string, raw: unknown, ids: ReadonlySet<string>, depth = 0): Parsed {
  if (!STEP_ID.test(id)) return { step: null, problems: ['step ids must match [a-zA-Z_][a-zA-Z0-9_-]{0,63}'] };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { step: null, problems: ['a step must be a mapping'] };
  const fields = raw as Record<string, unknown>;
  const kindName = fields['kind'];
  if (typeof kindName !== 'string') return { step: null, problems: ['kind is required'] };
  const kind = nodeKind(kindName);
  const own: Record<string, unknown> = {};
  for (const name of Object.keys(kind?.fields ?? {})) if (fields[name] !== undefined) own[name] = fields[name];
  const problems = kindProblems(fields, kindName, own, ids);
  const step: StepDef = {
    id,
    kind: kindName,
    dependsOn: dependsOn(fields['depends_on'], problems),
    when: null,
    retry: retry(fields['retry'], problems),
    timeoutMs: null,
    onError: onError(fields['on_error'], problems),
    onReplay: onReplay(fields['on_replay'], problems),
    description: typeof fields['description'] === 'string' ? fields['description'] : null,
    outputSchema: null,
    fields: own,
  };
  const cache = parseCache(fields['cache'], kindName, problems);
  if (cache) {
    step.cache = cache;
    celProblems(cache.key, 'cache.key', problems);
  }
  if (fields['when'] !== undefined) {
    const compiled =
      typeof fields['when'] === 'string'
        ? compileCel(fields['when'])
        : { ok: false as const, error: 'must be a CEL string' };
    if (compiled.ok) step.when = compiled.program.source;
    else problems.push(`when: ${compiled.error}`);
  }
  if (fields['timeout'] !== undefined) {
    const timeout = parseWorkflowDuration(fields['timeout']);
    if (timeout.ok) step.timeoutMs = timeout.ms;
    else problems.push(`timeout: ${timeout.error}`);
  }
  if (fields['output_schema'] !== undefined) {
    const problem = schemaCompileProblem(fields['output_schema']);
    if (problem !== null) problems.push(`output_schema: ${problem}`);
    // A kind that declares the field reads it itself (reference §2.3): a subagent step's schema is its child's.
    else if (kind?.fields['output_schema'] === undefined)
      step.outputSchema = fields['output_schema'] as Record<string, unknown>;
  }
  if (kind?.implemented && problems.length === 0) parseNested(step, depth, problems);
  return { step, problems };
}
