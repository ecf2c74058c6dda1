// The `emit` step (producers reference §2.8, §2.14): a note for the run's conversation (root when none), an audit
// line, a counter; its output is `value`. The note is keyed by the step, so a replay after a restart notes once.
import { done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';

/** A metric name as Prometheus label values go: short, plain. */
const METRIC_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

async function runEmit(ctx: StepContext): Promise<StepResult> {
  const { spec, run, step } = ctx;
  const emit = ctx.ports.emit;
  const wants = spec['note'] !== undefined || spec['audit'] !== undefined || spec['metric'] !== undefined;
  if (wants && !emit) return failed('emit: no note, audit or metric sink in this process');
  if (emit && spec['metric'] !== undefined) {
    const name = String(spec['metric']);
    if (!METRIC_NAME.test(name)) return failed(`emit: metric "${name}" is not a metric name`);
    emit.metric(run.workflow, name);
  }
  if (emit && spec['audit'] !== undefined) emit.audit({ run: run.id, step: step.id, audit: spec['audit'] });
  if (emit && spec['note'] !== undefined) {
    const note = typeof spec['note'] === 'string' ? spec['note'] : JSON.stringify(spec['note']);
    await emit.note({
      conversation: run.conversation,
      principal: run.principal,
      text: `run ${run.id}: ${note}`,
      key: `emit:${ctx.idempotencyKey}`,
    });
  }
  return done(spec['value'] ?? null);
}

function checkEmit(fields: Readonly<Record<string, unknown>>): string[] {
  const metric = fields['metric'];
  const problems: string[] = [];
  if (['note', 'audit', 'metric', 'value'].every((f) => fields[f] === undefined))
    problems.push('emit needs at least one of note, audit, metric or value');
  if (metric !== undefined && (typeof metric !== 'string' || (!metric.includes('{{') && !METRIC_NAME.test(metric))))
    problems.push('emit.metric must be a metric name ([a-zA-Z_][a-zA-Z0-9_.:-]*, ≤ 64 chars)');
  return problems;
}

export const EMIT_KIND: NodeKind = {
  name: 'emit',
  category: 'integration',
  implemented: true,
  effect: true,
  doc: '`note`: a `[note]` `run <run id>: <note>` for the conversation that started the run (the root conversation when none), read by its next turn — once per step, even if a restart replays it. `audit`: one `audit.emit {run, step, audit}` line. `metric`: adds one to `agentd_workflow_metric_total{workflow, metric}`. Output: `value` (null when absent). At least one field is required.',
  fields: {
    note: { doc: 'Text (templates) left as a note; a non-string is written as JSON.' },
    audit: { doc: 'Any JSON value (templates) logged as `audit.emit`.' },
    metric: { doc: 'A counter name: `agentd_workflow_metric_total{workflow, metric}` gains one.' },
    value: { doc: 'The step output (templates or `CEL:`).' },
  },
  check: checkEmit,
  run: runEmit,
};
