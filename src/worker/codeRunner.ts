// Runs code tools in the worker's own process: the permission check first when a rule could match (the
// supervisor judges it), then the argument schema, then the tool's `run`, bounded by the turn's cancel/deadline.
import { describeError } from '../errors.js';
import type { TurnSpec } from '../protocol/frames.js';
import type { ToolCall } from '../protocol/messages.js';
import type { CodeTool } from '../tools/codeTools.js';
import { checkSchema } from './schemaCheck.js';
import { raceSignal, type ToolAnswer } from './toolRunner.js';

/** Asks the supervisor for a verdict on a gated call: null = no answer; an error answer = refused. */
export type CheckPermission = (name: string, args: unknown, index: number) => Promise<ToolAnswer | null>;

export type CallCode = (call: ToolCall, index: number, signal: AbortSignal) => Promise<ToolAnswer>;

export function codeRunner(tools: readonly CodeTool[], turn: TurnSpec, check: CheckPermission): CallCode {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const gated = new Set(turn.gated ?? []);
  return async (call, index, signal) => {
    const tool = byName.get(call.name);
    if (!tool) return { result: `error: no such tool '${call.name}'`, is_error: true };
    if (gated.has(call.name)) {
      const verdict = await raceSignal(check(call.name, call.arguments, index), signal);
      if (verdict === null)
        return { result: `${call.name}: no answer from the supervisor (cancelled or deadline)`, is_error: true };
      if (verdict.is_error) return verdict;
    }
    const problem = checkSchema(call.arguments, tool.inputSchema);
    if (problem !== null) return { result: `invalid arguments for ${call.name}: ${problem}`, is_error: true };
    try {
      const running = Promise.resolve(
        tool.run(call.arguments as Record<string, unknown>, { signal, turnId: turn.turn_id }),
      );
      const value = await raceSignal(running, signal);
      if (value === null && signal.aborted)
        return { result: `${call.name}: stopped (cancelled or deadline)`, is_error: true };
      return { result: toJson(value), is_error: false };
    } catch (err) {
      return { result: `${call.name} failed: ${describeError(err)}`, is_error: true };
    }
  };
}

/** The value as the transcript can store it: JSON round-tripped (undefined becomes null). */
function toJson(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return String(value);
  }
}
