// goal.* and side.*: the tools that steer a conversation beyond its current turn. Each reaches the supervisor's
// steering desk; without one (no supervisor), the tool says it is not available.
import { actsForAll } from '../../domain/principal.js';
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

/**
 * A goal starts turns by itself, with no message from anyone, so setting or clearing one is the operator's, from
 * a turn as over A2A (`goal.*` commands). side.start stays open: it runs one turn, one hop deeper, for the same
 * owner, as message.send to a new conversation does.
 */
function goalRefusal(tool: string, caller: ToolCaller): ToolOutcome | null {
  if (actsForAll(caller.principal)) return null;
  return toolError(`${tool}: goals are the operator's; a turn for ${caller.principal} may not set or clear one`);
}

export function goalSet(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (!host.steering) return toolUnavailable('goal.set');
  const refused = goalRefusal('goal.set', caller);
  if (refused) return refused;
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
  const refused = goalRefusal('goal.clear', caller);
  if (refused) return refused;
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
