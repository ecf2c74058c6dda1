// The `tool` step (producers reference §2.4, §2.8): one of agentd's own internal tools called for the run, by `name`
// with `args`, through the same runner a turn's calls take (input and output schemas checked). Only the tools a step
// can run without a conversation or a parked timer are accepted; any other name is refused at load.
import { done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';

/** Internal tools a step may call: they need no conversation, no person and no parked timer. */
export const STEP_TOOLS: readonly string[] = [
  'memory.get',
  'memory.set',
  'memory.list',
  'memory.delete',
  'message.send',
  'workflow.status',
  'workflow.list',
  'workflow.signal',
  'workflow.cancel',
];

function toolProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const name = fields['name'];
  const problems: string[] = [];
  // A tool call's run is no child: it would not inherit the deadline nor be cancelled with this run.
  if (name === 'workflow.run')
    problems.push('tool.name "workflow.run" cannot run as a step: use kind: workflow (a child run of this run)');
  else if (typeof name !== 'string' || !STEP_TOOLS.includes(name))
    problems.push(
      `tool.name ${JSON.stringify(name)} cannot run as a step in this build (allowed: ${STEP_TOOLS.join(', ')}; other steps cover sleep, think, subagents, knowledge and persons)`,
    );
  const args = fields['args'];
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args)))
    problems.push('tool.args must be a mapping');
  return problems;
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

async function runTool(ctx: StepContext): Promise<StepResult> {
  const call = ctx.ports.tool;
  if (!call) return failed('tool: no internal tools in this process');
  const name = String(ctx.step.fields['name']);
  const got = await call({
    name,
    args: (ctx.spec['args'] ?? {}) as Record<string, unknown>,
    run: ctx.run.id,
    step: ctx.step.id,
    principal: ctx.run.principal,
    conversation: ctx.run.conversation,
    key: ctx.idempotencyKey,
  });
  return got.is_error ? failed(`tool ${name}: ${textOf(got.result)}`) : done(got.result);
}

export const TOOL_KIND: NodeKind = {
  name: 'tool',
  category: 'integration',
  implemented: true,
  effect: true,
  doc: `Calls one of agentd's internal tools for the run (as the run's principal, from the run's conversation): \`name\` is one of ${STEP_TOOLS.map((t) => `\`${t}\``).join(', ')}; \`args\` (templates) are checked against the tool's input schema. Output: the tool's result; an error result fails the step \`tool <name>: <error>\`. The call is keyed by the step, so a replayed \`message.send\` finds the delivery its first call made. Any other tool name is refused at load (sleep, think, subagents, knowledge and persons have their own steps; \`workflow.run\`: use \`kind: workflow\`, a child run).`,
  fields: {
    name: { required: true, doc: 'The internal tool (a literal name).' },
    args: { doc: "The tool's arguments (a mapping; templates)." },
  },
  check: toolProblems,
  run: runTool,
};
