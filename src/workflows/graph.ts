// Graph rules of a workflow (producers reference §2.3): start nodes, a finish, known targets, no cycles, every step
// reachable from a start. Pure; problems name the step.
import type { StepDef } from '../domain/workflow.js';
import { isStartKind } from './nodeKinds.js';

const START_HINT = 'once|manual|loop|schedule|subscribe|signal|event|a2a';

/** Steps that `step` can hand control to besides its dependents: goto and switch targets. */
export function jumpTargets(step: StepDef): string[] {
  const targets = step.onError.kind === 'goto' ? [step.onError.target] : [];
  if (step.kind === 'switch') {
    const cases = step.fields['cases'];
    if (cases !== null && typeof cases === 'object') targets.push(...(Object.values(cases) as string[]));
    if (typeof step.fields['default'] === 'string') targets.push(step.fields['default']);
  }
  return targets;
}

/** Step ids in dependency order (ties by id); null when there is a cycle, with the steps on it. */
export function topoOrder(steps: Readonly<Record<string, StepDef>>): { order: string[]; cycle: string[] } {
  const indegree = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const step of Object.values(steps)) {
    indegree.set(step.id, step.dependsOn.filter((d) => d in steps).length);
    for (const dep of step.dependsOn) if (dep in steps) dependents.set(dep, [...(dependents.get(dep) ?? []), step.id]);
  }
  const ready = [...indegree]
    .filter(([, n]) => n === 0)
    .map(([id]) => id)
    .sort();
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift() as string;
    order.push(id);
    for (const next of dependents.get(id) ?? []) {
      const left = (indegree.get(next) ?? 0) - 1;
      indegree.set(next, left);
      if (left === 0) {
        ready.push(next);
        ready.sort();
      }
    }
  }
  const placed = new Set(order);
  const cycle = [...indegree]
    .filter(([id, n]) => n > 0 && !placed.has(id))
    .map(([id]) => id)
    .sort();
  return { order, cycle };
}

/** Every graph problem of the definition's steps. */
export function graphProblems(steps: Readonly<Record<string, StepDef>>): string[] {
  const all = Object.values(steps);
  const problems: string[] = [];
  if (!all.some((s) => isStartKind(s.kind))) problems.push(`at least one start node is required (${START_HINT})`);
  if (!all.some((s) => s.kind === 'finish')) problems.push('a finish step is required');
  for (const step of all) {
    for (const dep of step.dependsOn) {
      if (dep === step.id) problems.push(`step "${step.id}": depends on itself`);
      else if (!(dep in steps)) problems.push(`step "${step.id}": depends_on "${dep}" is not a step`);
    }
    for (const target of jumpTargets(step))
      if (target === step.id) problems.push(`step "${step.id}": goto targets itself`);
      else if (!(target in steps)) problems.push(`step "${step.id}": goto target "${target}" is not a step`);
    if (isStartKind(step.kind) && step.dependsOn.length > 0)
      problems.push(`step "${step.id}": a start node has no depends_on`);
    if (!isStartKind(step.kind) && step.dependsOn.length === 0)
      problems.push(`step "${step.id}": unreachable root (a step without depends_on must be a start node)`);
  }
  if (problems.length > 0) return problems;
  const { cycle } = topoOrder(steps);
  if (cycle.length > 0) return [`cycle among steps [${cycle.join(', ')}]`];
  return unreachable(steps).map((id) => `step "${id}" is unreachable from every start node`);
}

function unreachable(steps: Readonly<Record<string, StepDef>>): string[] {
  const seen = new Set(
    Object.values(steps)
      .filter((s) => isStartKind(s.kind))
      .map((s) => s.id),
  );
  let grew = true;
  while (grew) {
    grew = false;
    for (const step of Object.values(steps)) {
      if (seen.has(step.id)) continue;
      const fed =
        step.dependsOn.some((d) => seen.has(d)) ||
        Object.values(steps).some((s) => seen.has(s.id) && jumpTargets(s).includes(step.id));
      if (fed) {
        seen.add(step.id);
        grew = true;
      }
    }
  }
  return Object.keys(steps)
    .filter((id) => !seen.has(id))
    .sort();
}
