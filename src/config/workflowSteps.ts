// Every step of a definition, nested ones included (a body's, a parallel branch's): what the config's load checks
// walk (search steps, secrets, `human.to`), so a step inside a `foreach` is checked like a top-level one. Pure.
import type { StepDef, WorkflowDef } from '../domain/workflow.js';

/** The steps of `steps` and, depth first, of every body and branch under them. */
export function everyStep(steps: WorkflowDef['steps']): StepDef[] {
  const found: StepDef[] = [];
  for (const step of Object.values(steps)) {
    found.push(step);
    if (step.body) found.push(...everyStep(step.body));
    for (const branch of Object.values(step.branches ?? {})) found.push(...everyStep(branch));
  }
  return found;
}
