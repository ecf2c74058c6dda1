// The output spill (producers reference §2.5, §2.13 `limits.inline_max_bytes`): a step output whose JSON is larger
// than the bound is kept as the artifact `<run>/<step>/output.json` and the run record holds `{"$artifact": <id>,
// "size": <n>}` instead, so a run of large outputs does not rewrite them on every commit. Templates and CEL of later
// steps see the value itself: the references in `steps.*.output` and `vars` (at the top, or one level down, as a
// body's collected results hold them) are read back before a step's fields are rendered.
import type { StepDef, WorkflowRun } from '../domain/workflow.js';
import { schemaProblem } from './jsonSchema.js';
import { artifactContent, keepArtifact } from './kinds/artifactKinds.js';
import type { StepPorts, StepResult } from './nodeKind.js';

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

type Read = (ref: SpillRef) => Promise<unknown>;

/** `v` with a reference (or the references one level inside it) replaced by the value it stands for. */
async function expand(v: unknown, read: Read): Promise<unknown> {
  if (isSpillRef(v)) return read(v);
  if (Array.isArray(v)) return v.some(isSpillRef) ? Promise.all(v.map((x) => (isSpillRef(x) ? read(x) : x))) : v;
  if (v === null || typeof v !== 'object' || !Object.values(v).some(isSpillRef)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = isSpillRef(x) ? await read(x) : x;
  return out;
}

/**
 * The run as a step's templates see it: spilled outputs and vars read back (a missing artifact reads as null). The
 * run itself is not changed; without a reference the same object is answered.
 */
export async function expandedRun(run: WorkflowRun, ports: StepPorts, now: number): Promise<WorkflowRun> {
  const read: Read = async (ref) => {
    const text = await artifactContent(ports.memory, ref.$artifact, now);
    return text === null ? null : (JSON.parse(text) as unknown);
  };
  let steps: WorkflowRun['steps'] | null = null;
  for (const [id, state] of Object.entries(run.steps)) {
    const output = await expand(state.output, read);
    if (output === state.output) continue;
    steps ??= { ...run.steps };
    steps[id] = { ...state, output };
  }
  let vars: WorkflowRun['vars'] | null = null;
  for (const [name, value] of Object.entries(run.vars)) {
    const full = await expand(value, read);
    if (full === value) continue;
    vars ??= { ...run.vars };
    vars[name] = full;
  }
  return steps === null && vars === null ? run : { ...run, steps: steps ?? run.steps, vars: vars ?? run.vars };
}
