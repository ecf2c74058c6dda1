// One turn's in-memory state (reference §11.1): the request transcript, the delta, counters, the wrap-up memory and
// the reasoning parts to replay. Reasoning lives only here: never in the delta, the TurnResult or another turn.
import type { ModelRequest, ModelResponse } from '../intel/modelRequest.js';
import type { FinishArgs, SpawnPayload, TurnSpec } from '../protocol/frames.js';
import type { Msg, ToolCall, ToolDef, Usage } from '../protocol/messages.js';
import type { TurnErrorKind, TurnStatus } from '../protocol/status.js';
import { DEFAULT_TOKENS_PER_CALL } from './nextStep.js';
import type { WrapUpState } from './wrapUp.js';
import { initWrapUp } from './wrapUp.js';

/** How a turn ends: a status, and an error (with where it came from) for the statuses that carry one. */
export interface TurnEnd {
  status: TurnStatus;
  error?: string;
  kind?: TurnErrorKind;
}

export interface TurnState {
  spec: TurnSpec;
  /** The tools offered to the model: spec.tools, then each family `tools.more` loaded (tools/onDemand.ts). */
  tools: ToolDef[];
  /** The model of the next call; a budget degrade swaps it for the rest of the turn. */
  model: string;
  maxRounds: number;
  maxTokens: number;
  /** The turn's base output cap; `wrap.cap` is the raised one actually requested. */
  maxTokensPerCall: number;
  deadlineAt: number;
  deadlineHit: boolean;
  /** The request transcript: the slice, then the delta plus wrap-up prompts that never reach the delta. */
  messages: Msg[];
  delta: Msg[];
  usage: Usage;
  rounds: number;
  toolCalls: number;
  reasks: number;
  loopCounts: Map<string, number>;
  wrap: WrapUpState;
  /** Reasoning parts by the assistant Msg (of `messages`) they came with, and the model that produced them. */
  reasoning: Map<Msg, { model: string; parts: unknown }>;
  lastText?: string;
  value?: unknown;
  /** Set when a `finish` call succeeded in the current round. */
  pendingFinish?: FinishArgs;
  finish?: FinishArgs;
}

export function initState(payload: SpawnPayload, now: number): TurnState {
  const { turn: spec, limits } = payload;
  const maxRounds = spec.max_rounds > 0 ? spec.max_rounds : limits.max_steps > 0 ? limits.max_steps : Infinity;
  const maxTokensPerCall = spec.max_tokens_per_call > 0 ? spec.max_tokens_per_call : DEFAULT_TOKENS_PER_CALL;
  return {
    spec,
    tools: [...spec.tools],
    model: payload.intelligence.model,
    maxRounds,
    maxTokens: limits.max_tokens,
    maxTokensPerCall,
    // The supervisor floors deadline_ms at 1 s; 0 or less here means the turn has no deadline.
    deadlineAt: limits.deadline_ms > 0 ? now + limits.deadline_ms : Infinity,
    deadlineHit: false,
    messages: [...spec.messages],
    delta: [],
    usage: { input_tokens: 0, output_tokens: 0 },
    rounds: 0,
    toolCalls: 0,
    reasks: 0,
    loopCounts: new Map(),
    wrap: initWrapUp(maxTokensPerCall),
    reasoning: new Map(),
  };
}

/** Appends to the request transcript and the delta alike. */
export function append(s: TurnState, msg: Msg): void {
  s.messages.push(msg);
  s.delta.push(msg);
}

/** Wrap-up scaffolding (partial answers, continue and retry prompts): the model sees it, the delta does not. */
export function appendRequestOnly(s: TurnState, msg: Msg): void {
  s.messages.push(msg);
}

/**
 * Appends an assistant message. The model sees its own text (earlier cut-off parts are already in its request);
 * the delta gets `deltaText`, the parts joined. Both share the calls, so every id keeps its pair. The response's
 * reasoning parts are remembered on the request-side message, for replay.
 */
export function appendAssistant(
  s: TurnState,
  response: ModelResponse,
  deltaText: string | undefined,
  calls: ToolCall[],
  ts: number,
): void {
  const own: Msg = { role: 'assistant', tool_calls: calls, ts };
  if (response.text) own.text = response.text;
  s.messages.push(own);
  rememberReasoning(s, own, response);
  if ((deltaText ?? '') === (response.text ?? '')) {
    s.delta.push(own);
    return;
  }
  const folded: Msg = { role: 'assistant', tool_calls: calls, ts };
  if (deltaText) folded.text = deltaText;
  s.delta.push(folded);
}

/**
 * A turn that ends (a guard, a cancel, a failure) while cut-off parts wait for their continuation still reports
 * them: one assistant message in the delta, and the turn's text.
 */
export function flushParts(s: TurnState, ts: number): void {
  if (s.wrap.parts.length === 0) return;
  const text = s.wrap.parts.join('');
  s.delta.push({ role: 'assistant', text, tool_calls: [], ts });
  s.lastText = text;
  s.wrap = { ...s.wrap, parts: [] };
}

/** Keeps a response's reasoning parts for the assistant Msg it produced (request side only). */
export function rememberReasoning(s: TurnState, msg: Msg, response: ModelResponse): void {
  if (response.reasoning === undefined) return;
  s.reasoning.set(msg, { model: response.model ?? s.model, parts: response.reasoning });
}

/** The parts to replay: only those the current model produced (a degrade or a fallback model gets none). */
function replayable(s: TurnState): ReadonlyMap<Msg, unknown> | undefined {
  let replay: Map<Msg, unknown> | undefined;
  for (const [msg, entry] of s.reasoning) {
    if (entry.model !== s.model) continue;
    replay ??= new Map();
    replay.set(msg, entry.parts);
  }
  return replay;
}

export function buildRequest(s: TurnState): ModelRequest {
  const req: ModelRequest = {
    model: s.model,
    messages: s.messages,
    system: s.spec.system,
    tools: s.spec.kind === 'think' ? [] : s.tools,
    maxTokens: s.wrap.cap,
    temperature: s.spec.temperature,
    outputSchema: s.spec.output_schema,
  };
  const reasoning = replayable(s);
  if (reasoning) req.reasoning = reasoning;
  if (s.spec.idempotency_prefix !== '') req.cacheKey = s.spec.idempotency_prefix;
  return req;
}
