// OpenAI Chat Completions wire format: request body from a wire request, response body to a model response
// (reference §5.3, §8.3). Pure: no I/O; a malformed response throws an `intel: …` DaemonError.
import type { Msg, ToolCall } from '../protocol/messages.js';
import type { ModelResponse, ReasoningParts, StopReason, ToolNameMap, WireRequest } from './modelRequest.js';
import {
  intelError,
  isRecord,
  parseToolArguments,
  providerError,
  renderToolContent,
  replayParts,
  tokenCount,
  usageOf,
  wireToolName,
} from './modelRequest.js';
import { usesCompletionTokens } from './requestRules.js';

// The shared types moved to modelRequest.ts; re-exported so existing importers keep compiling.
export type { ModelRequest, ModelResponse, StopReason, ToolNameMap } from './modelRequest.js';
export { renderToolContent, sanitizeToolName } from './modelRequest.js';

export interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  /** Replayed reasoning, exactly as the same model returned it. */
  reasoning_content?: string;
}

export interface OpenAiBody {
  model: string;
  messages: OpenAiMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  reasoning_effort?: 'low' | 'medium' | 'high';
  tools?: Array<{ type: 'function'; function: { name: string; description: string; parameters: unknown } }>;
  tool_choice?: 'auto';
  response_format?: { type: 'json_schema'; json_schema: { name: string; schema: unknown; strict: boolean } };
  /** Routes the calls of one conversation to the same prompt cache. */
  prompt_cache_key?: string;
}

function assistantMessage(msg: Extract<Msg, { role: 'assistant' }>, req: WireRequest, nameMap: ToolNameMap) {
  const out: OpenAiMessage = { role: 'assistant', content: msg.text ?? '' };
  if (msg.tool_calls.length > 0) {
    out.content = msg.text ? msg.text : null;
    out.tool_calls = msg.tool_calls.map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: wireToolName(c.name, nameMap), arguments: JSON.stringify(c.arguments ?? {}) },
    }));
  }
  const reasoning = replayParts(req, msg, 'openai');
  if (typeof reasoning === 'string') out.reasoning_content = reasoning;
  return out;
}

function toWireMessage(msg: Msg, req: WireRequest, nameMap: ToolNameMap): OpenAiMessage {
  switch (msg.role) {
    case 'system':
      return { role: 'system', content: msg.text };
    case 'note':
      return { role: 'system', content: `[note] ${msg.text}` };
    case 'user':
      return { role: 'user', content: msg.text };
    case 'assistant':
      return assistantMessage(msg, req, nameMap);
    case 'tool': {
      const text = renderToolContent(msg.content);
      return { role: 'tool', tool_call_id: msg.id, content: msg.is_error ? `ERROR: ${text}` : text };
    }
  }
}

/** Builds the request body and the reverse map for tool names sanitized on the wire. */
export function buildOpenAiRequest(req: WireRequest): { body: OpenAiBody; nameMap: ToolNameMap } {
  const nameMap: ToolNameMap = new Map();
  const messages: OpenAiMessage[] = [];
  if (req.system.trim() !== '') messages.push({ role: 'system', content: req.system });
  // Tools first so their spelling wins the reverse map over replayed calls of tools no longer offered.
  const tools = req.tools.map((t) => ({
    type: 'function' as const,
    function: { name: wireToolName(t.name, nameMap), description: t.description, parameters: t.input_schema },
  }));
  for (const m of req.messages) messages.push(toWireMessage(m, req, nameMap));
  const body: OpenAiBody = { model: req.model, messages };
  if (usesCompletionTokens(req.model)) body.max_completion_tokens = req.maxTokens;
  else body.max_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.effort !== undefined) body.reasoning_effort = req.effort;
  if (req.cacheKey !== undefined) body.prompt_cache_key = req.cacheKey;
  if (tools.length > 0) {
    body.tools = tools;
    body.tool_choice = 'auto';
  }
  // Never strict: strict mode rejects most hand-written schemas, and the answer is validated in full anyway (§12).
  if (req.outputSchema !== undefined) {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: 'answer', schema: req.outputSchema, strict: false },
    };
  }
  return { body, nameMap };
}

function parseContent(content: unknown): string | undefined {
  if (typeof content === 'string') return content === '' ? undefined : content;
  if (Array.isArray(content)) {
    const parts = content.filter(isRecord).map((p) => (typeof p.text === 'string' ? p.text : ''));
    const joined = parts.join('');
    return joined === '' ? undefined : joined;
  }
  return undefined;
}

function parseToolCalls(raw: unknown, nameMap: ToolNameMap): ToolCall[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw intelError('malformed response: tool_calls is not an array');
  return raw.map((c, i) => {
    const fn = isRecord(c) ? c.function : undefined;
    if (!isRecord(c) || !isRecord(fn) || typeof fn.name !== 'string') {
      throw intelError(`malformed response: tool call ${i} has no function name`);
    }
    const id = typeof c.id === 'string' && c.id !== '' ? c.id : `call_${i + 1}`;
    return { id, name: nameMap.get(fn.name) ?? fn.name, arguments: parseToolArguments(fn.arguments) };
  });
}

function parseStopReason(reason: unknown): StopReason {
  if (reason === 'stop') return 'end_turn';
  if (reason === 'tool_calls') return 'tool_use';
  if (reason === 'length') return 'max_tokens';
  return 'other';
}

/**
 * `prompt_tokens` includes the cached part (`prompt_tokens_details.cached_tokens`): input is the rest, and the
 * cached part is reported apart, as on the Anthropic wire (reference §5.3, docs/guide/budgets.md "Prompt-cache tokens").
 */
function parseUsage(usage: Record<string, unknown>): ModelResponse['usage'] {
  const details = usage.prompt_tokens_details;
  const cached = Math.min(tokenCount(isRecord(details) ? details.cached_tokens : 0), tokenCount(usage.prompt_tokens));
  return usageOf(tokenCount(usage.prompt_tokens) - cached, usage.completion_tokens, cached, 0);
}

function reasoningTokens(usage: Record<string, unknown>): number {
  const details = usage.completion_tokens_details;
  return isRecord(details) ? tokenCount(details.reasoning_tokens) : 0;
}

/**
 * Parses a response body (already JSON-decoded); throws `intel: …` on an error object or a malformed body.
 * `model` tags the reasoning parts so they are replayed only to the model that produced them.
 */
export function parseOpenAiResponse(json: unknown, nameMap: ToolNameMap, model = ''): ModelResponse {
  if (!isRecord(json)) throw intelError('malformed response: not a JSON object');
  if (json.error !== undefined && json.error !== null) throw providerError(json.error);
  const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) {
    throw intelError('malformed response: no choices[0].message');
  }
  const usage = isRecord(json.usage) ? json.usage : {};
  const text = parseContent(choice.message.content);
  const thought = choice.message.reasoning_content;
  const reasoning: ReasoningParts | undefined =
    typeof thought === 'string' && thought !== '' ? { model, dialect: 'openai', parts: thought } : undefined;
  const response: ModelResponse = {
    toolCalls: parseToolCalls(choice.message.tool_calls, nameMap),
    usage: parseUsage(usage),
    stopReason: parseStopReason(choice.finish_reason),
    hasReasoning: reasoning !== undefined || reasoningTokens(usage) > 0,
  };
  if (text !== undefined) response.text = text;
  if (reasoning !== undefined) response.reasoning = reasoning;
  return response;
}
