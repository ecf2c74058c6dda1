// Supervisor-side execution of internal tools (reference §11.5): lookup → input check → execute → output check.
// Every failure is a result value the model sees; nothing thrown by a tool escapes runInternalTool.
import { describeError } from '../errors.js';
import { HANDLERS } from './internalHandlers.js';
import { type InternalToolHost, type ToolCaller, type ToolOutcome, type ToolResult, toolError } from './toolOutcome.js';
import { checkInput, checkOutput } from './validation.js';

export { isSuspending } from './internalContracts.js';
export type {
  DeliveryReceipt,
  DeliveryRequest,
  HumanQuestion,
  InternalToolHost,
  ThinkRequest,
  ToolCaller,
  ToolOutcome,
  ToolResult,
} from './toolOutcome.js';
export { toolDefer, toolError, toolOk } from './toolOutcome.js';

/** True for the `{_raw: "…"}` placeholder the worker stores when the model's arguments were not JSON. */
function isRawArguments(args: unknown): args is { _raw: unknown } {
  return typeof args === 'object' && args !== null && !Array.isArray(args) && '_raw' in args;
}

/** Runs internal tool `name` for `caller`; never throws. */
export function runInternalTool(name: string, args: unknown, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
  if (handler === undefined) return toolError(`no such tool "${name}"`);
  if (isRawArguments(args)) {
    const raw = String(args._raw);
    const shown = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
    return toolError(`invalid arguments for ${name}: not valid JSON: ${shown}`);
  }
  const input = checkInput(name, args ?? {});
  if (!input.ok) return toolError(`invalid arguments for ${name}: ${input.explain}`);
  let outcome: ToolOutcome;
  try {
    outcome = handler((args ?? {}) as Record<string, unknown>, caller, host);
  } catch (err) {
    return toolError(`${name} failed: ${describeError(err)}`);
  }
  if (outcome.kind === 'park') {
    const { complete } = outcome;
    return { ...outcome, complete: (now) => sealResult(name, complete(now), host) };
  }
  if (outcome.kind === 'defer') return { kind: 'defer', promise: settleDeferred(name, outcome.promise, host) };
  return { kind: 'ready', ...sealResult(name, outcome, host) };
}

/** A deferred result sealed like a ready one; a rejection (or a non-result) becomes an error result, never a throw. */
function settleDeferred(name: string, promise: Promise<ToolResult>, host: InternalToolHost): Promise<ToolResult> {
  return Promise.resolve(promise).then(
    (answer) => {
      if (typeof answer !== 'object' || answer === null || !('is_error' in answer)) {
        return { result: `${name} failed: the supervisor gave no result`, is_error: true };
      }
      return sealResult(name, answer, host);
    },
    (err: unknown) => ({ result: `${name} failed: ${describeError(err)}`, is_error: true }),
  );
}

/** Validates a success against `name`'s output schema; a violation becomes an error result. Errors pass as is. */
export function sealResult(
  name: string,
  outcome: ToolResult,
  host?: Pick<InternalToolHost, 'onResultSchemaMismatch'>,
): ToolResult {
  if (outcome.is_error) return { result: outcome.result, is_error: true };
  const output = checkOutput(name, outcome.result);
  if (output.ok) return { result: outcome.result, is_error: false };
  host?.onResultSchemaMismatch?.(name, output.explain);
  return { result: `result of ${name} does not match its output schema: ${output.explain}`, is_error: true };
}
