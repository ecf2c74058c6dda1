// Running one step's kind (producers reference §2.7 items 3-5): render its fields, derive its idempotency key,
// bound it by its timeout and the run's cancel, and turn anything thrown into a failed result.
import { createHash } from 'node:crypto';
import type { StepDef, WorkflowRun } from '../domain/workflow.js';
import { schemaProblem } from './jsonSchema.js';
import type { NodeKind, StepContext, StepPorts, StepResult } from './nodeKind.js';
import { cacheKeyOf, readCache, writeCache } from './stepCache.js';
import { readSpills, spillOutput, spillScope } from './stepSpill.js';
import { renderValue } from './templates.js';

/** sha256("<run>.<step>")[0:32]: the same for every attempt, so a deduplicating callee sees one effect. */
export function idempotencyKey(runId: string, stepId: string): string {
  return createHash('sha256').update(`${runId}.${stepId}`).digest('hex').slice(0, 32);
}

function renderFields(
  step: StepDef,
  kind: NodeKind,
  scope: Record<string, unknown>,
): { ok: true; spec: Record<string, unknown> } | { ok: false; error: string } {
  const spec: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(step.fields)) {
    if (kind.fields[name]?.raw) {
      spec[name] = value;
      continue;
    }
    const rendered = renderValue(value, scope);
    if (!rendered.ok) return { ok: false, error: `step "${step.id}": ${name}: ${rendered.error}` };
    spec[name] = rendered.value;
  }
  return { ok: true, spec };
}

function message(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'error';
}

/** Runs the kind bounded by the step's timeout and the run's cancel; never throws. */
async function runKind(kind: NodeKind, ctx: Omit<StepContext, 'signal'>, cancel: AbortSignal): Promise<StepResult> {
  if (!kind.run) return { type: 'failed', error: `kind "${ctx.step.kind}" cannot be executed` };
  const timeoutMs = ctx.step.timeoutMs;
  const timeout = timeoutMs === null ? null : AbortSignal.timeout(Math.max(1, timeoutMs));
  const signal = timeout ? AbortSignal.any([cancel, timeout]) : cancel;
  try {
    const result = kind.run({ ...ctx, signal });
    if (!(result instanceof Promise)) return result;
    return await new Promise<StepResult>((resolve) => {
      const onAbort = (): void =>
        resolve(
          timeout?.aborted
            ? { type: 'failed', error: `step timed out after ${timeoutMs} ms`, timeout: true }
            : { type: 'failed', error: 'cancelled' },
        );
      signal.addEventListener('abort', onAbort, { once: true });
      result
        .then(resolve, (err: unknown) => resolve({ type: 'failed', error: message(err) }))
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
  } catch (err) {
    return { type: 'failed', error: message(err) };
  }
}

/**
 * Executes `kind` for the step that `run` just began, through the step's `cache` when it has one; an output over
 * `limits.inline_max_bytes` is spilled to an artifact (stepSpill.ts). Never throws.
 */
export async function executeStep(
  run: WorkflowRun,
  step: StepDef,
  kind: NodeKind,
  ports: StepPorts,
  now: number,
  cancel: AbortSignal,
): Promise<StepResult> {
  try {
    // An error text is redacted where the run stores it (runState.ts failStep).
    const result = await executeKind(run, step, kind, ports, now, cancel);
    return await spillOutput(result, run, step, ports, now);
  } catch (err) {
    return { type: 'failed', error: `spill: ${message(err)}` };
  }
}

async function executeKind(
  ...[run, step, kind, ports, now, cancel]: Parameters<typeof executeStep>
): Promise<StepResult> {
  const attempt = run.steps[step.id]?.attempt ?? 1;
  const key = idempotencyKey(run.id, step.id);
  const scope = spillScope(run, await readSpills(run, ports, now), { now, step: step.id, attempt, key });
  const rendered = renderFields(step, kind, scope);
  if (!rendered.ok) return { type: 'failed', error: rendered.error };
  const ctx = { run, step, spec: rendered.spec, scope, now, idempotencyKey: key, attempt, ports };
  if (!step.cache) return runKind(kind, ctx, cancel);
  const cacheKey = cacheKeyOf(step.cache, step, rendered.spec, scope);
  if (!cacheKey.ok) return { type: 'failed', error: cacheKey.error };
  try {
    const hit = await readCache(ports.memory, cacheKey.key, now);
    if (hit) return { type: 'done', output: hit.output, cached: cacheKey.key };
    const result = await runKind(kind, ctx, cancel);
    // Only an output the step keeps is cached (a schema failure is the step's, reference §2.7 item 6).
    const kept =
      result.type === 'done' && (step.outputSchema === null || !schemaProblem(step.outputSchema, result.output));
    if (kept) await writeCache(ports.memory, cacheKey.key, step.cache, result.output, now);
    return result;
  } catch (err) {
    return { type: 'failed', error: `cache: ${message(err)}` };
  }
}
