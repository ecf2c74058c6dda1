// goal.* and side.*: the tools that steer a conversation beyond its current turn. Each reaches the supervisor's
// steering desk; without one (no supervisor), the tool says it is not available.
import { describeError } from '../../errors.js';
import {
  type InternalToolHost,
  type ToolCaller,
  type ToolOutcome,
  type ToolResult,
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
  const promoted = host.steering.sidePromote(caller, args['conversation'] as string).then(
    (refused): ToolResult =>
      refused === null
        ? { result: { promoted: true }, is_error: false }
        : { result: `side.promote: ${refused}`, is_error: true },
    (err: unknown): ToolResult => ({ result: `side.promote: ${describeError(err)}`, is_error: true }),
  );
  return toolDefer(promoted);
}
