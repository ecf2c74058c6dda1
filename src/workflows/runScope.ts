// The namespaces templates and CEL see inside a run (producers reference §2.5). Pure.
import type { StepState, WorkflowRun } from '../domain/workflow.js';
import { scopedView } from './nesting.js';

const view = (s: StepState) => ({ status: s.status, output: s.output ?? null, error: s.error, attempt: s.attempt });

/** `inputs`, `run`, `steps`, `vars`, `last`, `now_ms`, `env` for a run (and, during a step, its attempt and key). */
export function runScope(
  run: WorkflowRun,
  extra: { now?: number; step?: string; attempt?: number; key?: string } = {},
): Record<string, unknown> {
  const steps: Record<string, unknown> = {};
  let last: unknown = null;
  let lastEnded = -1;
  for (const [id, s] of Object.entries(run.steps)) {
    steps[id] = view(s);
    if (
      s.status === 'done' &&
      s.endedMs !== null &&
      s.endedMs >= lastEnded &&
      !run.definition.steps[id]?.kind.match(/^(once|manual)$/)
    ) {
      lastEnded = s.endedMs;
      last = s.output ?? null;
    }
  }
  // A body step sees its instance's variables (`item`, `index`, …) and its siblings by their own ids.
  const scoped = extra.step?.includes('.') ? scopedView(run, extra.step) : null;
  for (const prefix of scoped?.prefixes ?? [])
    for (const [id, s] of Object.entries(run.steps))
      if (id.startsWith(prefix) && !id.includes('.', prefix.length)) steps[id.slice(prefix.length)] = view(s);
  return {
    ...scoped?.vars,
    inputs: run.inputs,
    vars: run.vars,
    steps,
    last,
    now_ms: extra.now ?? run.updated,
    run: { id: run.id, workflow: run.workflow, start: run.start, principal: run.principal, status: run.status },
    env: {
      run: run.id,
      ts: run.created,
      step: extra.step ?? null,
      attempt: extra.attempt ?? null,
      idempotency_key: extra.key ?? null,
    },
  };
}
