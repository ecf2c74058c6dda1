// One step of a dialect-3 document (producers reference §2.3): common fields parsed, the kind's own fields
// checked strictly (unknown and missing fields are errors with the reference's texts). Pure.
import type { OnError, StepDef } from '../domain/workflow.js';
import { compileCel } from '../expr/cel.js';
import { parseWorkflowDuration } from './durations.js';
import { schemaCompileProblem } from './jsonSchema.js';
import { COMMON_FIELDS, nodeKind, REFUSED_COMMON } from './nodeKinds.js';
import { parseCache } from './stepCache.js';

const MAX_RETRY = 20;
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
    } else celProblems(fields[name], name, problems);
  return [...problems, ...(kind.check?.(fields, ids) ?? [])];
}

/** Parses step `id` of a document whose step ids are `ids`; problems come without the workflow/step prefix. */
export function parseStep(id: string, raw: unknown, ids: ReadonlySet<string>): Parsed {
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
  return { step, problems };
}
