// Running one step's kind (producers reference §2.7 items 3-5): render its fields, derive its idempotency key,
// bound it by its timeout and the run's cancel, and turn anything thrown into a failed result.
import { createHash } from 'node:crypto';
import type { StepDef, WorkflowRun } from '../domain/workflow.js';
import type { NodeKind, StepPorts, StepResult } from './nodeKind.js';
import { runScope } from './runScope.js';
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

/** Executes `kind` for the step that `run` just began; never throws. */
export async function executeStep(
  run: WorkflowRun,
  step: StepDef,
  kind: NodeKind,
  ports: StepPorts,
  now: number,
  cancel: AbortSignal,
): Promise<StepResult> {
  const attempt = run.steps[step.id]?.attempt ?? 1;
  const key = idempotencyKey(run.id, step.id);
  const scope = runScope(run, { now, step: step.id, attempt, key });
  const rendered = renderFields(step, kind, scope);
  if (!rendered.ok) return { type: 'failed', error: rendered.error };
  if (!kind.run) return { type: 'failed', error: `kind "${step.kind}" cannot be executed` };
  const timeout = step.timeoutMs === null ? null : AbortSignal.timeout(Math.max(1, step.timeoutMs));
  const signal = timeout ? AbortSignal.any([cancel, timeout]) : cancel;
  const ctx = { run, step, spec: rendered.spec, scope, now, idempotencyKey: key, attempt, ports, signal };
  try {
    const result = kind.run(ctx);
    if (!(result instanceof Promise)) return result;
    return await new Promise<StepResult>((resolve) => {
      const onAbort = (): void =>
        resolve(
          timeout?.aborted
            ? { type: 'failed', error: `step timed out after ${step.timeoutMs} ms`, timeout: true }
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
