// The bodies of subagent.*: each reaches the subagent desk through the host; without one (no supervisor), the
// tool says it is not available. Refusal texts are the desk's (reference §1.4-1.5).
import { type Args, durationMs } from '../tools/handlers/handler.js';
import { type InternalToolHost, type ToolCaller, type ToolOutcome, toolUnavailable } from '../tools/toolOutcome.js';

export function subagentRun(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  return host.subagents ? host.subagents.run(caller, args) : toolUnavailable('subagent.run');
}

export function subagentAwait(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.subagents) return toolUnavailable('subagent.await');
  const timeout = args.timeout as string | number | undefined;
  return host.subagents.await(caller, args.handle as string, timeout === undefined ? null : durationMs(timeout));
}

export function subagentSend(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.subagents) return toolUnavailable('subagent.send');
  return host.subagents.send(caller, args.handle as string, args.message as string);
}

export function subagentStatus(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  return host.subagents ? host.subagents.status(caller, args.handle as string) : toolUnavailable('subagent.status');
}

export function subagentList(_args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  return host.subagents ? host.subagents.list(caller) : toolUnavailable('subagent.list');
}

export function subagentKill(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.subagents) return toolUnavailable('subagent.kill');
  const reason = (args.reason as string | undefined) ?? 'killed by request';
  return host.subagents.kill(caller, args.handle as string, reason);
}

export function subagentResult(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.subagents) return toolUnavailable('subagent.result');
  const offset = typeof args.offset === 'number' ? args.offset : 0;
  const run = typeof args.run === 'number' ? args.run : null;
  return host.subagents.result(caller, args.handle as string, offset, run);
}

/** Name → body, spread into the internal handler table. */
export const SUBAGENT_HANDLERS = {
  'subagent.run': subagentRun,
  'subagent.await': subagentAwait,
  'subagent.send': subagentSend,
  'subagent.status': subagentStatus,
  'subagent.list': subagentList,
  'subagent.kill': subagentKill,
  'subagent.result': subagentResult,
};
