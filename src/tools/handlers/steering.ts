// goal.* and side.*: the tools that steer a conversation beyond its current turn. Each reaches the supervisor's
// steering desk; without one (no supervisor), the tool says it is not available.
import {
  type InternalToolHost,
  type ToolCaller,
  type ToolOutcome,
  toolDefer,
  toolError,
  toolOk,
  toolUnavailable,
} from '../toolOutcome.js';
import type { Args } from './handler.js';

export function goalSet(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.steering) return toolUnavailable('goal.set');
  const budget = (args['token_budget'] as number | undefined) ?? null;
  const goal = host.steering.goalSet(caller, args['objective'] as string, budget);
  return typeof goal === 'string' ? toolError(`goal.set: ${goal}`) : toolOk({ goal });
}

export function goalGet(_args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.steering) return toolUnavailable('goal.get');
  return toolOk({ goal: host.steering.goalGet(caller) });
}

export function goalClear(_args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.steering) return toolUnavailable('goal.clear');
  return toolOk({ cleared: host.steering.goalClear(caller) });
}

export function goalComplete(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.steering) return toolUnavailable('goal.complete');
  return toolDefer(host.steering.goalComplete(caller, args['evidence'] as string));
}

export function sideStart(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.steering) return toolUnavailable('side.start');
  const started = host.steering.sideStart(caller, args['instruction'] as string);
  return typeof started === 'string' ? toolError(`side.start: ${started}`) : toolOk(started);
}

export function sidePromote(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.steering) return toolUnavailable('side.promote');
  const refused = host.steering.sidePromote(caller, args['conversation'] as string);
  return refused === null ? toolOk({ promoted: true }) : toolError(`side.promote: ${refused}`);
}
