// Runs one tool call by its route (reference §11.4 "Execute"): internal round-trip, MCP (through `callMcp`), or the
// unknown-tool observation. A tool failure is a value ({result, is_error}); nothing thrown here escapes the loop.
import { describeError } from '../errors.js';
import type { TurnSpec } from '../protocol/frames.js';
import type { ToolCall } from '../protocol/messages.js';
import { TOOLS_MORE, withheldFamily } from '../tools/onDemand.js';

/** A tool's answer as the transcript stores it. */
export interface ToolAnswer {
  result: unknown;
  is_error: boolean;
}

/** One MCP tool call as the worker dials it (through worker/mcpServers.ts). */
export interface McpCall {
  server: string;
  /** The tool's name on that server. */
  tool: string;
  args: unknown;
  /** spec.tool_meta plus `agent/idempotency_key`. */
  meta: Record<string, unknown>;
  timeoutMs: number;
  signal: AbortSignal;
}

export type CallMcp = (call: McpCall) => Promise<ToolAnswer>;
/** `index`: the call's 0-based position across the turn (the supervisor derives idempotency keys from it). */
export type CallInternal = (name: string, args: unknown, index: number) => Promise<ToolAnswer | null>;

export type ToolRoute =
  | { kind: 'internal' }
  | { kind: 'mcp'; server: string; tool: string }
  | { kind: 'code' }
  | { kind: 'none' };

const MCP_MIN_TIMEOUT_MS = 100;
const MCP_MAX_TIMEOUT_MS = 600_000;

/** Where a call goes: internal names first, then MCP routes (§11.4), then code tools. Pure. */
function routeTool(turn: TurnSpec, name: string): ToolRoute {
  if (turn.internal.includes(name)) return { kind: 'internal' };
  const route = Object.hasOwn(turn.mcp_routes, name) ? turn.mcp_routes[name] : undefined;
  if (route) return { kind: 'mcp', server: route[0], tool: route[1] };
  if (turn.code_tools?.includes(name)) return { kind: 'code' };
  return { kind: 'none' };
}

/**
 * `<prefix>#<turn_id>.<n>`; `n` is the call's 0-based index across the WHOLE turn (agentd used the index within
 * one model message, which repeats across rounds). Undefined when the prefix is empty (no key is sent).
 */
function idempotencyKey(prefix: string, turnId: string, n: number): string | undefined {
  return prefix === '' ? undefined : `${prefix}#${turnId}.${n}`;
}

/** Resolves null when `signal` aborts first (cancel or deadline: "no answer"). */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise<T | null>((resolve, reject) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export interface ToolRunContext {
  turn: TurnSpec;
  /** The call's 0-based index across the turn. */
  n: number;
  /** Aborts on cancel or at the turn deadline. */
  signal: AbortSignal;
  /** Time left before the turn deadline (Infinity when none). */
  remainingMs: number;
  callInternal: CallInternal;
  callMcp?: CallMcp;
  /** Runs a code tool in this process; absent ⇒ code tools are unknown. */
  callCode?: (call: ToolCall, index: number, signal: AbortSignal) => Promise<ToolAnswer>;
}

async function runInternal(call: ToolCall, ctx: ToolRunContext): Promise<ToolAnswer> {
  const noAnswer = `${call.name}: no answer from the supervisor (cancelled or deadline)`;
  if (ctx.signal.aborted) return { result: noAnswer, is_error: true };
  try {
    const answer = await raceSignal(ctx.callInternal(call.name, call.arguments, ctx.n), ctx.signal);
    return answer ?? { result: noAnswer, is_error: true };
  } catch (err) {
    return { result: `${call.name}: ${describeError(err)}`, is_error: true };
  }
}

async function runMcp(
  call: ToolCall,
  route: { server: string; tool: string },
  ctx: ToolRunContext,
): Promise<ToolAnswer> {
  if (!ctx.callMcp) return { result: 'tool transport error: MCP is not available in this build', is_error: true };
  const meta: Record<string, unknown> = { ...(ctx.turn.tool_meta ?? {}) };
  const scope = ctx.turn.journal_scope;
  const key = scope ? `${scope}${ctx.n}` : idempotencyKey(ctx.turn.idempotency_prefix, ctx.turn.turn_id, ctx.n);
  if (key !== undefined) meta['agent/idempotency_key'] = key;
  const cap = ctx.turn.mcp_call_timeout_ms ?? MCP_MAX_TIMEOUT_MS;
  const timeoutMs = Math.min(Math.max(ctx.remainingMs, MCP_MIN_TIMEOUT_MS), cap);
  try {
    return await ctx.callMcp({ ...route, args: call.arguments, meta, timeoutMs, signal: ctx.signal });
  } catch (err) {
    return { result: `tool transport error: ${describeError(err)}`, is_error: true };
  }
}

/** Why plan mode keeps `name` from running (the tool error the model reads), or null when it may run. */
export function planModeRefusal(turn: TurnSpec, name: string): string | null {
  if (turn.mode !== 'plan' || turn.read_only?.includes(name)) return null;
  return `${name}: plan mode forbids tools that could change something; propose it instead (the caller leaves plan mode)`;
}

/** Executes one call by its route; always resolves with a result value. */
export function runToolCall(call: ToolCall, ctx: ToolRunContext): Promise<ToolAnswer> {
  const route = routeTool(ctx.turn, call.name);
  switch (route.kind) {
    case 'internal':
      return runInternal(call, ctx);
    case 'mcp':
      return runMcp(call, route, ctx);
    case 'code':
      return ctx.callCode
        ? ctx.callCode(call, ctx.n, ctx.signal)
        : Promise.resolve({ result: `error: no such tool '${call.name}'`, is_error: true });
    case 'none':
      return Promise.resolve({ result: unroutedError(ctx.turn, call.name), is_error: true });
  }
}

/** Why a call routes nowhere, in words that let the model recover. */
function unroutedError(turn: TurnSpec, name: string): string {
  const family = withheldFamily(turn.more, name);
  if (family !== null) return `error: '${name}' is not shown yet: call ${TOOLS_MORE} with family "${family}" first`;
  // A subagent's `tools` grant narrowed the catalogue: say so rather than "no such tool" (reference §1.4).
  if (turn.allowed_tools) return `error: tool '${name}' is not in this subagent's allowed tools`;
  return `error: no such tool '${name}'`;
}
