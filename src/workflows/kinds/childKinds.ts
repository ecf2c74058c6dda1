// Kinds over other runs (producers reference §2.4, §2.8): `workflow` starts a child run (sync waits for its end,
// async/detached return at once) and `join` waits for run ids or subagent handles to end. Their waits are saved
// with the run and watched again after a restart (waitWatch.ts), so both are durable.
import { parseWorkflowDuration } from '../durations.js';
import {
  done,
  ENGINE_STOPPED,
  failed,
  keyedAttempt,
  type NodeKind,
  type StepContext,
  type StepResult,
} from '../nodeKind.js';

const MODES = ['sync', 'async', 'detached'] as const;
const deferred = (v: unknown): boolean => typeof v === 'string' && (v.includes('{{') || v.startsWith('CEL:'));

async function runChild(ctx: StepContext): Promise<StepResult> {
  const { spec, run, step } = ctx;
  // Rendered: a templated mode is known only now, and only a known one is taken.
  const mode = spec['mode'] ?? 'sync';
  if (!MODES.includes(mode as never))
    return failed(`workflow: mode rendered ${JSON.stringify(mode)}, want one of ${MODES.join('|')}`);
  if (!ctx.ports.startRun) return failed('workflow: this process starts no child runs');
  const inputs = spec['inputs'] ?? {};
  if (inputs === null || typeof inputs !== 'object' || Array.isArray(inputs))
    return failed('workflow: inputs must be an object');
  const got = await ctx.ports.startRun({
    workflow: String(spec['name']),
    ...(typeof spec['start'] === 'string' ? { node: spec['start'] } : {}),
    inputs: inputs as Record<string, unknown>,
    key: `child:${run.id}.${step.id}#${keyedAttempt(ctx)}`,
    principal: run.principal,
    conversation: run.conversation,
    // `sync` kept with the child: whether the parent waits for it is read from here, not the templated field.
    parent: { run: run.id, step: step.id, cascade: spec['cascade'] !== false, sync: mode === 'sync' },
    ...(typeof spec['version'] === 'string' ? { version: spec['version'] } : {}),
    deadlineMs: run.deadlineMs,
  });
  if (!got.ok) return failed(got.error);
  // Dropped while the child was being made (a lost race branch): a sync child goes with its step; a drain keeps it.
  if (ctx.signal.aborted && mode === 'sync' && spec['cascade'] !== false && ctx.signal.reason !== ENGINE_STOPPED)
    await ctx.ports.runs?.cancel(got.run, `its parent step "${step.id}" was cancelled`);
  if (mode !== 'sync') return done({ run: got.run, workflow: spec['name'], mode });
  return { type: 'suspend', wait: { kind: 'run', run: got.run, dueMs: null, child: true, sinceMs: ctx.now } };
}

function runJoin(ctx: StepContext): StepResult {
  const handles = ctx.spec['handles'];
  if (!Array.isArray(handles) || !handles.every((h) => typeof h === 'string' && h !== ''))
    return failed('join: handles must be a list of run ids or subagent handles');
  const min = ctx.spec['min'] ?? handles.length;
  if (!Number.isInteger(min) || (min as number) < 1 || (min as number) > handles.length)
    return failed(`join: min must be an integer from 1 to ${handles.length} (got ${JSON.stringify(min)})`);
  let untilMs: number | null = null;
  if (ctx.spec['timeout'] !== undefined) {
    const timeout = parseWorkflowDuration(ctx.spec['timeout']);
    if (!timeout.ok) return failed(`join: timeout: ${timeout.error}`);
    untilMs = ctx.now + timeout.ms;
  }
  const join = { handles: handles as string[], min: min as number, partials: ctx.spec['partials'] === true, untilMs };
  return { type: 'suspend', wait: { kind: 'join', dueMs: null, sinceMs: ctx.now, join } };
}

export const CHILD_KINDS: readonly NodeKind[] = [
  {
    name: 'workflow',
    category: 'control',
    implemented: true,
    effect: true,
    doc: "Starts a run of workflow `name` with `inputs` as a child of this run (its principal and conversation; its deadline never past this run's). `sync` (default): the step waits and its output is `{run, status, output, error}` whatever the child's status; `async`/`detached`: output `{run, workflow, mode}` at once. A replayed step finds the child it started. Cancelling this run cancels its children unless `cascade: false`. A child the workflow's `concurrency.max_runs` would queue fails the step.",
    fields: {
      name: { required: true, doc: 'The workflow to run.' },
      inputs: { doc: 'Its inputs (an object; templates).' },
      mode: {
        doc: 'sync (default) | async | detached; a template is rendered when the step runs (a rendered sync is waited for and cancelled with the parent; anything else fails the step).',
      },
      start: { doc: 'Its start node (default: `manual`, else the first by id).' },
      version: {
        doc: 'A hash prefix the definition must have: `workflow "<n>" hash <12> does not match the pinned version <pin>`.',
      },
      cascade: { doc: 'false: cancelling this run leaves the child running (default true).' },
    },
    check: (f) =>
      f['mode'] === undefined || deferred(f['mode']) || MODES.includes(f['mode'] as never)
        ? []
        : [`workflow.mode must be one of ${MODES.join('|')}`],
    run: runChild,
  },
  {
    name: 'join',
    category: 'control',
    implemented: true,
    doc: 'Waits until every handle (or `min` of them) — run ids or subagent handles — has ended. Output keyed by handle: `{kind: run, status, output, error}` or `{kind: subagent, status, result, error}`; an unknown handle counts as ended `{error: "unknown handle"}`. `timeout` passing first ⇒ a `timeout` (`join timed out`), or with `partials: true` output `{partial: true, results}`. Durable: after a restart the handles are watched again.',
    fields: {
      handles: { required: true, doc: 'Run ids or subagent handles (a list; templates).' },
      timeout: { doc: 'How long to wait (a duration).' },
      min: { doc: 'How many must end (default all).' },
      partials: { doc: 'true: a timeout ends the step done with the results so far.' },
    },
    check: (f) => {
      const t = f['timeout'] === undefined || deferred(f['timeout']) ? null : parseWorkflowDuration(f['timeout']);
      return t && !t.ok ? [`join.timeout: ${t.error}`] : [];
    },
    run: runJoin,
  },
];
