// The steps that reach other runs (producers reference §2.8): `workflow.signal` delivers now and counts,
// `workflow.wait` is `wait on: run`, `workflow.cancel` cancels. A replayed signal step holds nothing twice (the
// step key keys the signal, and its count is kept under `_signals/<key>`); a cancel is idempotent by nature.
import { parseWorkflowDuration } from '../durations.js';
import { done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';

const SENT_PREFIX = '_signals/';

function nonEmpty(kind: string, field: string, fields: Readonly<Record<string, unknown>>): string[] {
  const v = fields[field];
  return v === undefined || (typeof v === 'string' && v !== '') ? [] : [`${kind}.${field} must be a non-empty string`];
}

async function runSignal(ctx: StepContext): Promise<StepResult> {
  const runs = ctx.ports.runs;
  if (!runs) return failed('workflow.signal: no workflow desk in this process');
  const name = String(ctx.spec['name'] ?? '');
  if (name === '') return failed('workflow.signal: name rendered empty');
  const target = ctx.spec['run'];
  const key = `step:${ctx.idempotencyKey}`;
  const memoKey = `${SENT_PREFIX}${ctx.idempotencyKey}`;
  // A step replayed after a restart answers the count its first delivery got, and delivers nothing again.
  const sent = await ctx.ports.memory.get(memoKey, ctx.now);
  if (sent !== null) return done(sent.value);
  const delivered = await runs.signal({
    name,
    payload: ctx.spec['payload'] ?? null,
    key,
    run: typeof target === 'string' && target !== '' ? target : null,
    from: `run:${ctx.run.id}/${ctx.step.id}`,
  });
  const output = { delivered };
  await ctx.ports.memory.set({ key: memoKey, value: output, updated: ctx.now, expires: null });
  return done(output);
}

function runWait(ctx: StepContext): StepResult {
  const id = String(ctx.spec['run'] ?? '');
  if (id === '') return failed('workflow.wait: run rendered empty');
  let dueMs: number | null = null;
  if (ctx.spec['timeout'] !== undefined) {
    const timeout = parseWorkflowDuration(ctx.spec['timeout']);
    if (!timeout.ok) return failed(`workflow.wait: timeout: ${timeout.error}`);
    dueMs = ctx.now + timeout.ms;
  }
  return { type: 'suspend', wait: { kind: 'run', run: id, dueMs, sinceMs: ctx.now } };
}

async function runCancel(ctx: StepContext): Promise<StepResult> {
  const runs = ctx.ports.runs;
  if (!runs) return failed('workflow.cancel: no workflow desk in this process');
  const id = String(ctx.spec['run'] ?? '');
  if (id === '') return failed('workflow.cancel: run rendered empty');
  if (id === ctx.run.id)
    return failed('workflow.cancel: a run cannot cancel itself (use finish with status cancelled)');
  const reason = typeof ctx.spec['reason'] === 'string' ? ctx.spec['reason'] : 'cancelled by workflow.cancel';
  const answer = await runs.cancel(id, reason);
  return answer.ok ? done({ ok: true, run: id, status: answer.status }) : failed(answer.error);
}

export const RUN_KINDS: readonly NodeKind[] = [
  {
    name: 'workflow.signal',
    category: 'integration',
    implemented: true,
    effect: true,
    doc: 'Delivers signal `name` with `payload` now: to run `run` when given (held there until a `wait on: signal` takes it), else to every live run with a step waiting on it; then fires the matching `signal` start nodes. Output `{delivered: n}`, the real count. The waiter sees `from: "run:<run>/<step>"`. Keyed by the step: a step replayed after a restart delivers nothing twice and answers its first count.',
    fields: {
      name: { required: true, doc: 'The signal name (templates).' },
      payload: { doc: 'Any JSON value (templates or `CEL:`).' },
      run: { doc: 'A run id: only that run gets it (templates).' },
    },
    check: (fields) => [...nonEmpty('workflow.signal', 'name', fields), ...nonEmpty('workflow.signal', 'run', fields)],
    run: runSignal,
  },
  {
    name: 'workflow.wait',
    category: 'integration',
    implemented: true,
    doc: 'Waits for run `run` to end, as `wait on: run`: output `{run, status, output, error}` whatever its status; unknown ⇒ `wait run: no such run "<id>"`; `timeout` passing first ⇒ `timeout`, `wait timed out`. The wait is saved with the run and watched again after a restart.',
    fields: {
      run: { required: true, doc: 'The run id (templates, e.g. `{{steps.start.output.run}}`).' },
      timeout: { doc: 'How long to wait (a duration); none = until it ends.' },
    },
    check: (fields) => nonEmpty('workflow.wait', 'run', fields),
    run: runWait,
  },
  {
    name: 'workflow.cancel',
    category: 'integration',
    implemented: true,
    effect: true,
    doc: 'Cancels run `run` (its in-flight steps are aborted, its child runs and subagents with it): output `{ok: true, run, status}` — `cancelled`, or the status of a run that had already ended. Unknown ⇒ `no such run "<id>"`; the step\'s own run ⇒ refused (use `finish` with `status: cancelled`).',
    fields: {
      run: { required: true, doc: 'The run id (templates).' },
      reason: { doc: "The cancelled run's error (default `cancelled by workflow.cancel`)." },
    },
    check: (fields) => nonEmpty('workflow.cancel', 'run', fields),
    run: runCancel,
  },
];
