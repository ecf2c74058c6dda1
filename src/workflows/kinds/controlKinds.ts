// Control kinds built in this issue (producers reference §2.4, §2.8): switch, noop, finish, fail, assert, sleep,
// checkpoint. Each decides from its rendered fields; the engine applies the decision.
import { compileCel, evalPredicate } from '../../expr/cel.js';
import { parseWorkflowDuration } from '../durations.js';
import { done, failed, type NodeKind } from '../nodeKind.js';

const FINISH_STATUSES = ['completed', 'failed', 'refused', 'cancelled'] as const;

function caseTargets(fields: Readonly<Record<string, unknown>>): unknown[] {
  const cases = fields['cases'];
  const targets = cases !== null && typeof cases === 'object' ? Object.values(cases) : [];
  return fields['default'] === undefined ? targets : [...targets, fields['default']];
}

const switchKind: NodeKind = {
  name: 'switch',
  category: 'control',
  implemented: true,
  doc: 'Picks one step by value: `cases` maps a value of `on` to a step id (else `default`). The chosen step runs whatever its deps; the other targets are pruned. Output `{case, goto, skipped}`.',
  fields: {
    on: { required: true, doc: 'The value to match (template or `CEL:`).' },
    cases: { required: true, raw: true, doc: 'Mapping of value → step id.' },
    default: { doc: 'Step id when no case matches.' },
  },
  check: (fields, ids) => {
    const cases = fields['cases'];
    if (cases === null || typeof cases !== 'object' || Array.isArray(cases)) return ['switch.cases must be a mapping'];
    return caseTargets(fields).flatMap((t) =>
      typeof t !== 'string'
        ? ['switch cases and default must be single step-id strings']
        : ids.has(t)
          ? []
          : [`switch target "${t}" is not a step`],
    );
  },
  run: ({ spec, step }) => {
    const key = typeof spec['on'] === 'string' ? spec['on'] : JSON.stringify(spec['on']);
    const cases = step.fields['cases'] as Record<string, string>;
    const fallback = step.fields['default'] as string | undefined;
    const target = Object.hasOwn(cases, key) ? cases[key] : fallback;
    if (target === undefined) return failed(`switch: no case for "${key}" and no default`);
    const skipped = [...new Set(caseTargets(step.fields) as string[])].filter((t) => t !== target);
    return { type: 'switch', output: { case: key, goto: target, skipped }, goto: target, prune: skipped };
  },
};

export const CONTROL_KINDS: readonly NodeKind[] = [
  switchKind,
  {
    name: 'noop',
    category: 'control',
    implemented: true,
    doc: 'Does nothing; output null. A join point or a placeholder.',
    fields: {},
    run: () => done(null),
  },
  {
    name: 'finish',
    category: 'control',
    implemented: true,
    doc: "Ends the run with `status` (completed by default), its output and reason. A completed output must match the workflow's `outputs.schema`.",
    fields: {
      status: { doc: 'completed | failed | refused | cancelled (default completed).' },
      output: { doc: "The run's output (templates)." },
      reason: { doc: "The run's error text." },
    },
    check: (fields) => {
      const status = fields['status'];
      if (status === undefined || FINISH_STATUSES.includes(status as never)) return [];
      return [`finish.status must be one of ${FINISH_STATUSES.join('|')}`];
    },
    run: ({ spec }) => ({
      type: 'finish',
      status: (spec['status'] as (typeof FINISH_STATUSES)[number] | undefined) ?? 'completed',
      output: spec['output'] ?? null,
      reason: typeof spec['reason'] === 'string' ? spec['reason'] : null,
    }),
  },
  {
    name: 'fail',
    category: 'control',
    implemented: true,
    doc: 'Fails on purpose with `message` (default `deliberate failure`).',
    fields: { message: { doc: 'The error text.' }, code: { doc: 'A code kept in the step output.' } },
    run: ({ spec }) => failed(typeof spec['message'] === 'string' ? spec['message'] : 'deliberate failure'),
  },
  {
    name: 'assert',
    category: 'control',
    implemented: true,
    doc: 'Fails unless the CEL `condition` holds: `message`, or `assertion failed: <cond>`.',
    fields: {
      condition: { required: true, raw: true, doc: 'CEL predicate over the run scope.' },
      message: { doc: 'The error text when it does not hold.' },
    },
    run: ({ step, scope, spec }) => {
      const source = String(step.fields['condition']);
      const compiled = compileCel(source);
      if (!compiled.ok) return failed(`assert: ${compiled.error}`);
      const held = evalPredicate(compiled.program, scope);
      if (!held.ok) return failed(`assert: ${held.error}`);
      if (held.value === true) return done(true);
      return failed(
        typeof spec['message'] === 'string' ? spec['message'] : `assertion failed: ${compiled.program.source}`,
      );
    },
  },
  {
    name: 'sleep',
    category: 'control',
    implemented: true,
    doc: 'Waits `duration` (durable: the due time is stored and re-armed after a restart). Output `{slept_ms}`.',
    fields: { duration: { required: true, doc: 'A duration: seconds, `250ms|30s|5m|2h`, or `{ms}`.' } },
    check: (fields) => {
      const parsed = parseWorkflowDuration(fields['duration']);
      return parsed.ok || (typeof fields['duration'] === 'string' && fields['duration'].includes('{{'))
        ? []
        : [`sleep.duration: ${parsed.error}`];
    },
    run: ({ spec, now }) => {
      const parsed = parseWorkflowDuration(spec['duration']);
      if (!parsed.ok) return failed(`sleep: ${parsed.error}`);
      return { type: 'suspend', wait: { kind: 'sleep', dueMs: now + parsed.ms } };
    },
  },
  {
    name: 'checkpoint',
    category: 'control',
    implemented: true,
    doc: 'Marks a point in the run; every step end is already committed, so this only records `{checkpoint: name}`.',
    fields: { name: { doc: 'A label.' } },
    run: ({ spec }) => done({ checkpoint: spec['name'] ?? null }),
  },
];
