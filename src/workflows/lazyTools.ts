// The workflow.* tool bodies, loaded with the engine at their first call (issue 14: idle memory): the call first
// asks the workflows producer to start its engine (`workflows_open`, lazyWorkflows.ts), then runs the body
// (workflowTools.ts) and answers as it does. Once loaded, a call runs the body at once, as before.
import type { Args, Handler } from '../tools/handlers/handler.js';
import {
  type InternalToolHost,
  type ToolCaller,
  type ToolOutcome,
  type ToolResult,
  toolDefer,
} from '../tools/toolOutcome.js';

type Bodies = typeof import('./workflowTools.js')['WORKFLOW_HANDLERS'];
type Name = keyof Bodies;

const NAMES: readonly Name[] = [
  'workflow.run',
  'workflow.wait',
  'workflow.status',
  'workflow.list',
  'workflow.cancel',
  'workflow.signal',
  'workflow.create',
  'workflow.update',
  'workflow.delete',
];

let bodies: Bodies | null = null;

/** An outcome as the result it settles to (a park waits out its time here). */
function settled(outcome: ToolOutcome, host: InternalToolHost): Promise<ToolResult> {
  if (outcome.kind === 'defer') return outcome.promise;
  if (outcome.kind === 'ready') return Promise.resolve({ result: outcome.result, is_error: outcome.is_error });
  const { wakeAt, complete } = outcome;
  return new Promise((resolve) => setTimeout(() => resolve(complete(host.now())), Math.max(0, wakeAt - host.now())));
}

async function firstCall(name: Name, args: Args, caller: ToolCaller, host: InternalToolHost): Promise<ToolResult> {
  await host.port?.('workflows_open')?.();
  bodies ??= (await import('./workflowTools.js')).WORKFLOW_HANDLERS;
  return settled(bodies[name](args, caller, host), host);
}

function lazy(name: Name): Handler {
  return (args, caller, host) =>
    bodies !== null && host.port?.('workflows_open') == null
      ? bodies[name](args, caller, host)
      : toolDefer(firstCall(name, args, caller, host));
}

/** workflow.* by name, as workflowTools.ts's WORKFLOW_HANDLERS. */
export const WORKFLOW_HANDLERS: Record<Name, Handler> = Object.fromEntries(NAMES.map((n) => [n, lazy(n)])) as Record<
  Name,
  Handler
>;
