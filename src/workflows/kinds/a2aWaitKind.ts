// `a2a.wait` (producers reference §2.4, §2.8: "`a2a.wait` = `wait on: message`"): waits for a new A2A message on a
// conversation, typically the reply to an `a2a.send` (`conversation: "{{steps.send.output.context}}"`). Durable as
// `wait on: message`: the wait is saved with the run and a message held for it before its sender is answered.
import { parseWorkflowDuration } from '../durations.js';
import { failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';
import { suspendDelivered } from './waitOns.js';

function check(fields: Readonly<Record<string, unknown>>): string[] {
  // `timeout` is checked as the common field.
  const conversation = fields['conversation'];
  return conversation === undefined || typeof conversation === 'string'
    ? []
    : ['a2a.wait.conversation must be a conversation id or A2A contextId (a string; empty: any)'];
}

function run(ctx: StepContext): StepResult {
  let dueMs: number | null = null;
  if (ctx.spec['timeout'] !== undefined) {
    const timeout = parseWorkflowDuration(ctx.spec['timeout']);
    if (!timeout.ok) return failed(`a2a.wait: timeout: ${timeout.error}`);
    dueMs = ctx.now + timeout.ms;
  }
  return suspendDelivered(ctx, 'message', dueMs);
}

export const A2A_WAIT_KIND: NodeKind = {
  name: 'a2a.wait',
  category: 'integration',
  implemented: true,
  doc: "Waits for a new A2A message (SendMessage without a taskId) on `conversation` — the A2A contextId, e.g. `{{steps.send.output.context}}` after an `a2a.send`, or a conversation id — as `wait on: message` does: the message is held for the step before any `a2a` start or turn sees it, and its sender's task completes `delivered to 1 waiting workflow step`. Output `{conversation, message: {parts, text, message_id}, principal}`. A run acting for a principal takes only that principal's (or an operator's) messages. `timeout` passing first ⇒ a `timeout` (`wait timed out`). Survives a restart (a message sent meanwhile is a new delivery).",
  fields: {
    conversation: {
      doc: "The contextId or conversation id (templates; default the run's conversation — a run with none fails the step; empty: any).",
    },
    timeout: { doc: 'How long to wait (a duration); none: no limit.' },
  },
  check,
  run,
};
