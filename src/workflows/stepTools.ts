// The `tool` step's port (producers reference §2.8): an internal tool run for a workflow run through the same runner
// a turn's calls take, with a host that reaches what a step may — memory, message delivery, the workflow desk.
import type { ProducerContext } from '../runtime/producer.js';
import { runInternalTool } from '../tools/internalTools.js';
import type { InternalToolHost, ToolCaller, WorkPortMap, WorkPortName } from '../tools/toolOutcome.js';
import { STEP_TOOLS } from './kinds/toolKind.js';
import type { StepPorts, StepToolCall } from './nodeKind.js';

const noConversation = (): never => {
  throw new Error('a workflow step has no conversation of its own');
};

/** What a step's tool reaches; a delivery is keyed by the step, so a replay finds the first one. */
function stepHost(ctx: ProducerContext, key: string): InternalToolHost {
  const { config } = ctx;
  return {
    now: ctx.clock,
    instance: config.agent.name,
    memory: ctx.store.memory,
    conversation: noConversation,
    setPlan: noConversation,
    planMaxItems: config.context.plan.max_items,
    maxMessageDepth: config.limits.max_message_depth,
    askHumanFallback: 'fail',
    humanChannel: false,
    port: <K extends WorkPortName>(name: K): WorkPortMap[K] | null => {
      const port = ctx.ports.port(name);
      if (name !== 'deliver' || port === null) return port;
      const deliver = port as WorkPortMap['deliver'];
      const keyed: WorkPortMap['deliver'] = (req) => deliver({ ...req, dedupe: `workflow:${key}` });
      return keyed as WorkPortMap[K];
    },
  };
}

/** The caller a step's tool sees: the run's principal and conversation, depth 0, the call keyed by the step. */
function stepCaller(req: StepToolCall): ToolCaller {
  return {
    conversation: req.conversation ?? `wf-${req.run}`,
    principal: req.principal,
    turnId: `workflow:${req.key}`,
    depth: 0,
    kind: 'conversation',
    call: `workflow:${req.key}`,
    workflow: { run: req.run, step: req.step },
  };
}

/** Runs a `tool` step's call; a tool that would park (none of STEP_TOOLS does) is an error, never a hang. */
export function stepTools(ctx: ProducerContext): NonNullable<StepPorts['tool']> {
  return async (req) => {
    if (!STEP_TOOLS.includes(req.name)) return { result: `"${req.name}" cannot run as a step`, is_error: true };
    const outcome = runInternalTool(req.name, req.args, stepCaller(req), stepHost(ctx, req.key));
    if (outcome.kind === 'ready') return { result: outcome.result, is_error: outcome.is_error };
    if (outcome.kind === 'defer') return outcome.promise;
    return { result: `${req.name} would park; a step cannot`, is_error: true };
  };
}
