// Where `emit` steps report (producers reference §2.8, §2.14): a note for the run's conversation (root when it has
// none), kept once per step key in the timers' remembered keys; an audit line; a counter on the instance's metrics.
import { describeError } from '../errors.js';
import type { ProducerContext } from '../runtime/producer.js';
import type { StepEmitPorts } from './nodeKind.js';

export function stepSinks(ctx: ProducerContext): StepEmitPorts {
  const counter = ctx.metrics?.counter(
    'agentd_workflow_metric_total',
    'Counts from workflow emit steps, by workflow and metric name.',
    ['workflow', 'metric'],
  );
  return {
    async note({ conversation, principal, text, key }) {
      // Remembered before noting: a restart between the two loses the note rather than writing it twice.
      if (!(await ctx.store.timers.remember(`wf-note:${key}`, ctx.clock()))) return;
      await ctx.restored;
      try {
        ctx.supervisor.steering.note(conversation ?? 'root', text, principal);
      } catch (err) {
        ctx.log.error('inbox.accept.fail', { ctx: conversation ?? 'root', err: describeError(err) });
      }
    },
    audit: (fields) => ctx.log.info('audit.emit', fields),
    metric: (workflow, metric) => counter?.inc({ workflow, metric }),
  };
}
