// The output spill (producers reference §2.5, §2.13 `limits.inline_max_bytes`): a step output whose JSON is larger
// than the bound is kept as the artifact `<run>/<step>/output.json` and the run record holds `{"$artifact": <id>,
// "size": <n>}` instead, so a run of large outputs does not rewrite them on every commit, and `run.spills` records
// the id. Templates and CEL of later steps (fields, `when`, `while`/`until`) see the value itself: the references to
// the run's own spills in `steps.*.output` and `vars` (at the top, or one level down, as a body's collected results
// hold them) are read back whenever a scope is built (`spillScope`).
import type { StepDef, WorkflowRun } from '../domain/workflow.js';
import { schemaProblem } from './jsonSchema.js';
import { artifactContent, keepArtifact } from './kinds/artifactKinds.js';
import type { StepPorts, StepResult } from './nodeKind.js';
import { runScope } from './runScope.js';

export const DEFAULT_INLINE_MAX_BYTES = 65_536;

/** What the run record holds for a spilled output. */
export interface SpillRef {
  $artifact: string;
  size: number;
}

export function isSpillRef(v: unknown): v is SpillRef {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 2 && typeof (v as SpillRef).$artifact === 'string' && typeof (v as SpillRef).size === 'number';
}

/**
 * A `done` result whose output is over the bound, kept as an artifact and replaced by its reference (`spilled`
 * set). An output its `output_schema` refuses is left as is: the step fails on the value, not on the reference.
 */
export async function spillOutput(
  result: StepResult,
  run: Readonly<WorkflowRun>,
  step: Readonly<StepDef>,
  ports: StepPorts,
  now: number,
): Promise<StepResult> {
  if (result.type !== 'done' || result.output === undefined) return result;
  const text = JSON.stringify(result.output);
  const size = Buffer.byteLength(text ?? '');
  if (size <= (ports.inlineMaxBytes ?? DEFAULT_INLINE_MAX_BYTES)) return result;
  if (step.outputSchema !== null && schemaProblem(step.outputSchema, result.output) !== null) return result;
  const id = `${run.id}/${step.id}/output.json`;
  const mime = 'application/json';
  await keepArtifact(ports.memory, { id, name: 'output.json', mime, text, run: run.id, step: step.id, now });
  return { ...result, output: { $artifact: id, size }, spilled: { id, size } };
}

/** The values of a run's spilled outputs by artifact id (`readSpills`): what a scope reads a reference back as. */
export type SpillValues = ReadonlyMap<string, unknown>;

export const NO_SPILLS: SpillValues = new Map();

/**
 * The run's own spills (`run.spills`, recorded when a step's spilled result was applied) read back; a missing
 * artifact reads as null. Only these are ever read back: a value that merely has the shape of a reference (an http
 * answer, a template) naming another artifact stays as it is.
 */
export async function readSpills(run: Readonly<WorkflowRun>, ports: StepPorts, now: number): Promise<SpillValues> {
  if (!run.spills?.length) return NO_SPILLS;
  const values = new Map<string, unknown>();
  for (const id of run.spills) {
    const text = await artifactContent(ports.memory, id, now);
    values.set(id, text === null ? null : (JSON.parse(text) as unknown));
  }
  return values;
}

const own = (v: unknown, values: SpillValues): v is SpillRef => isSpillRef(v) && values.has(v.$artifact);

/** `v` with a reference to one of the run's spills (or those one level inside it) replaced by its value. */
export function expandValue(v: unknown, values: SpillValues): unknown {
  if (values.size === 0) return v;
  const at = (x: unknown): unknown => (own(x, values) ? values.get(x.$artifact) : x);
  if (own(v, values)) return at(v);
  if (Array.isArray(v)) return v.some((x) => own(x, values)) ? v.map(at) : v;
  if (v === null || typeof v !== 'object' || !Object.values(v).some((x) => own(x, values))) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, at(x)]));
}

/**
 * The run as templates and CEL see it: spilled outputs and vars read back. The run itself is not changed; without a
 * reference the same object is answered.
 */
export function expandedRun(run: WorkflowRun, values: SpillValues): WorkflowRun {
  if (values.size === 0) return run;
  let steps: WorkflowRun['steps'] | null = null;
  for (const [id, state] of Object.entries(run.steps)) {
    const output = expandValue(state.output, values);
    if (output === state.output) continue;
    steps ??= { ...run.steps };
    steps[id] = { ...state, output };
  }
  let vars: WorkflowRun['vars'] | null = null;
  for (const [name, value] of Object.entries(run.vars)) {
    const full = expandValue(value, values);
    if (full === value) continue;
    vars ??= { ...run.vars };
    vars[name] = full;
  }
  return steps === null && vars === null ? run : { ...run, steps: steps ?? run.steps, vars: vars ?? run.vars };
}

/** The one scope builder for a run with spills: `runScope` over the run with its spills read back. */
export function spillScope(run: WorkflowRun, values: SpillValues, extra: Parameters<typeof runScope>[1] = {}) {
  return runScope(expandedRun(run, values), extra);
}
