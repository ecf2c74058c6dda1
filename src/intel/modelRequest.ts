// The dialect-neutral model request and response, and the small pure helpers both wire formats share
// (reference §5.3). No I/O; a malformed answer throws an `intel: …` DaemonError.
import { DaemonError } from '../errors.js';
import type { Dialect } from '../protocol/frames.js';
import type { Msg, ToolCall, ToolDef, Usage } from '../protocol/messages.js';

/** One model call as the round loop describes it, independent of the dialect. */
export interface ModelRequest {
  model: string;
  /** The transcript as the model should see it (slice + this turn's delta), without the system prompt. */
  messages: Msg[];
  /** The system prompt (OpenAI: the first system message when non-blank; Anthropic: the head of `system`). */
  system: string;
  tools: ToolDef[];
  /** The base output cap; `callModel` raises it by a reasoning model's thinking room (see `outputCap`). */
  maxTokens: number;
  /** Used on OpenAI chat models only (default 0); never sent to Anthropic or to a reasoning model. */
  temperature?: number;
  /** A JSON Schema the answer must match (structured answers, reference §12). */
  outputSchema?: Record<string, unknown>;
  /**
   * Reasoning parts to replay, keyed by the assistant Msg object they came with (`ModelResponse.reasoning`).
   * Re-sent only to the model that produced them; dropped entirely when a call falls back to another model.
   */
  reasoning?: ReadonlyMap<Msg, unknown>;
  /** The scope whose calls share a prompt prefix (the turn's `<instance>/<conversation>`); see promptCacheKey. */
  cacheKey?: string;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

/** Opaque to the round loop: one answer's reasoning, tagged with the model and dialect that produced it. */
export interface ReasoningParts {
  model: string;
  dialect: Dialect;
  /** Anthropic: the `thinking` / `redacted_thinking` blocks as received; OpenAI: the `reasoning_content` string. */
  parts: unknown;
}

/** A parsed model answer: text and/or tool calls (names restored to the runtime's spelling). */
export interface ModelResponse {
  text?: string;
  toolCalls: ToolCall[];
  usage: Usage;
  stopReason: StopReason;
  /** The parts to replay with this answer's assistant message; undefined when there are none. */
  reasoning?: ReasoningParts;
  /** The model reasoned (parts, or reasoning tokens in usage), even when nothing replayable came back. */
  hasReasoning?: boolean;
  /** The wire model that answered (set by `callModel`; the fallback's model after a fallback). */
  model?: string;
}

/** A request after the request rules (requestRules.ts): what the wire builders send, nothing more. */
export interface WireRequest {
  model: string;
  messages: Msg[];
  system: string;
  tools: ToolDef[];
  /** The output cap, already raised by any thinking room. */
  maxTokens: number;
  /** Absent ⇒ no temperature field. */
  temperature?: number;
  /** OpenAI `reasoning_effort`. */
  effort?: 'low' | 'medium' | 'high';
  /** Anthropic `thinking.budget_tokens`. */
  thinkingBudget?: number;
  /** Present only for native structured generation. */
  outputSchema?: Record<string, unknown>;
  reasoning?: ReadonlyMap<Msg, unknown>;
  /** OpenAI `prompt_cache_key` (a digest, never the conversation id itself). */
  cacheKey?: string;
}

/** Wire tool name → the runtime's name, for the tools and replayed calls of one request. */
export type ToolNameMap = Map<string, string>;

/** Replaces every character outside `[A-Za-z0-9_-]` with `_` (`plan.get` → `plan_get`). */
export function sanitizeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The wire spelling of a tool name, remembering the first runtime name that produced it. */
export function wireToolName(name: string, nameMap: ToolNameMap): string {
  const wire = sanitizeToolName(name);
  if (!nameMap.has(wire)) nameMap.set(wire, name);
  return wire;
}

/** Tool content as the provider sees it: strings as is, anything else as compact JSON. */
export function renderToolContent(content: unknown): string {
  if (typeof content === 'string') return content;
  return JSON.stringify(content) ?? 'null';
}

/** The replayable parts for `msg` when they came from `model` on `dialect`; undefined otherwise. */
export function replayParts(req: WireRequest, msg: Msg, dialect: Dialect): unknown {
  const entry = req.reasoning?.get(msg);
  if (!isRecord(entry) || entry.model !== req.model || entry.dialect !== dialect) return undefined;
  return entry.parts;
}

export function intelError(message: string): DaemonError {
  return new DaemonError('intel_fatal', `intel: ${message}`);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A token count from a provider: a positive finite number, else 0. */
export function tokenCount(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/** A Usage from provider counts (each through `tokenCount`); cache counts only when above zero. */
export function usageOf(input: unknown, output: unknown, cacheRead: unknown, cacheWrite: unknown): Usage {
  const usage: Usage = { input_tokens: tokenCount(input), output_tokens: tokenCount(output) };
  if (tokenCount(cacheRead) > 0) usage.cache_read_tokens = tokenCount(cacheRead);
  if (tokenCount(cacheWrite) > 0) usage.cache_write_tokens = tokenCount(cacheWrite);
  return usage;
}

/** Arguments the model sent as a JSON string (OpenAI) or an object (Anthropic); unparsable ⇒ `{_raw}`. */
export function parseToolArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return { _raw: raw };
  }
}

/** The provider's `error` object as `intel: provider error: <message>`. */
export function providerError(err: unknown): DaemonError {
  const message = isRecord(err) && typeof err.message === 'string' ? err.message : JSON.stringify(err);
  return intelError(`provider error: ${message}`);
}
