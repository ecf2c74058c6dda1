// await (reference §13): a condition over runtime state, answered at once when it holds, else watched until
// it does or the timeout passes. The language itself is ../condition.ts; this body only reads the state.
import { formatDuration } from '../../config/duration.js';
import {
  type ConditionNode,
  type ConditionState,
  conditionKeys,
  evaluateCondition,
  isSatisfied,
  parseCondition,
} from '../condition.js';
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
import { type Args, durationMs } from './handler.js';

/** await's timeout when the model gives none, and the longest it may ask for. */
const AWAIT_DEFAULT_TIMEOUT = '10m';
const AWAIT_MAX_TIMEOUT_MS = 24 * 3_600_000;

/** The state a condition sees now: the memory keys it names, the clock, the caller's plan counts. */
function readState(keys: readonly string[], caller: ToolCaller, host: InternalToolHost): ConditionState {
  const now = host.now();
  const memory = new Map<string, unknown>();
  for (const key of keys) {
    const entry = host.memory.memoryGet(key, now);
    if (entry !== null) memory.set(key, entry.value);
  }
  const plan = host.conversation(caller.conversation).plan;
  const done = plan === null ? 0 : plan.items.filter((item) => item.status === 'done').length;
  return { now_ms: now, plan: { done, total: plan?.items.length ?? 0 }, memory };
}

/** `{satisfied: true}`, plus the value when the condition is not a plain boolean (e.g. `memory.answer`). */
function satisfied(value: unknown): Record<string, unknown> {
  return value === true ? { satisfied: true } : { satisfied: true, value };
}

/** Watches `ast` until it holds or `timeoutAt`; a failure reading state ends the watch as an error result. */
function watchCondition(
  ast: ConditionNode,
  caller: ToolCaller,
  host: InternalToolHost,
  watch: NonNullable<InternalToolHost['watch']>,
  timeoutAt: number,
): Promise<ToolResult> {
  const keys = conditionKeys(ast);
  let last: unknown = null;
  let failure: { error: unknown } | null = null;
  const check = (): boolean => {
    try {
      last = evaluateCondition(ast, readState(keys, caller, host));
      return isSatisfied(last);
    } catch (error) {
      failure = { error };
      return true;
    }
  };
  return watch(check, timeoutAt).then((hit): ToolResult => {
    if (failure !== null) throw failure.error;
    return { result: hit ? satisfied(last) : { satisfied: false, timed_out: true }, is_error: false };
  });
}

/** Answers `{satisfied: true}` at once when the condition already holds; otherwise defers to host.watch. */
export function awaitCondition(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const { watch } = host;
  if (watch === undefined) return toolUnavailable('await');
  const parsed = parseCondition(args['condition'] as string);
  if (!parsed.ok) return toolError(`invalid condition: ${parsed.error}`);
  const timeoutMs = durationMs((args['timeout'] as string | number | undefined) ?? AWAIT_DEFAULT_TIMEOUT);
  if (timeoutMs > AWAIT_MAX_TIMEOUT_MS) {
    return toolError(`await: timeout ${formatDuration(timeoutMs)} is longer than the 24h maximum`);
  }
  const now = evaluateCondition(parsed.ast, readState(conditionKeys(parsed.ast), caller, host));
  if (isSatisfied(now)) return toolOk(satisfied(now));
  return toolDefer(watchCondition(parsed.ast, caller, host, watch.bind(host), host.now() + timeoutMs));
}
