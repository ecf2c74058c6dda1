// OpenAI Chat Completions wire format: request body from a model request, response body to a model response
// (reference §5.3, §8.3). Pure: no I/O; a malformed response throws an `intel: …` DaemonError.
import { DaemonError } from '../errors.js';
import type { Msg, ToolCall, ToolDef, Usage } from '../protocol/messages.js';

/** One model call as the round loop describes it, independent of the dialect. */
export interface ModelRequest {
  model: string;
  /** The transcript as the model should see it (slice + this turn's delta), without the system prompt. */
  messages: Msg[];
  /** Sent first as a system message when non-blank. */
  system: string;
  tools: ToolDef[];
  maxTokens: number;
  /** Default 0. */
  temperature?: number;
  /** A JSON Schema the answer must match (structured answers, reference §12). */
  outputSchema?: Record<string, unknown>;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

/** A parsed model answer: text and/or tool calls (names restored to the runtime's spelling). */
export interface ModelResponse {
  text?: string;
  toolCalls: ToolCall[];
  usage: Usage;
  stopReason: StopReason;
}

export interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface OpenAiBody {
  model: string;
  messages: OpenAiMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  tools?: Array<{ type: 'function'; function: { name: string; description: string; parameters: unknown } }>;
  tool_choice?: 'auto';
  response_format?: { type: 'json_schema'; json_schema: { name: string; schema: unknown; strict: boolean } };
}

/** Wire tool name → the runtime's name, for the tools and replayed calls of one request. */
export type ToolNameMap = Map<string, string>;

const COMPLETION_TOKEN_MODELS = ['gpt-5', 'chatgpt-5', 'o1', 'o3', 'o4'];

/** Replaces every character outside `[A-Za-z0-9_-]` with `_` (`plan.get` → `plan_get`). */
export function sanitizeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Tool content as the provider sees it: strings as is, anything else as compact JSON. */
export function renderToolContent(content: unknown): string {
  if (typeof content === 'string') return content;
  return JSON.stringify(content) ?? 'null';
}

function wireName(name: string, nameMap: ToolNameMap): string {
  const wire = sanitizeToolName(name);
  if (!nameMap.has(wire)) nameMap.set(wire, name);
  return wire;
}

function toWireMessage(msg: Msg, nameMap: ToolNameMap): OpenAiMessage {
  switch (msg.role) {
    case 'system':
      return { role: 'system', content: msg.text };
    case 'note':
      return { role: 'system', content: `[note] ${msg.text}` };
    case 'user':
      return { role: 'user', content: msg.text };
    case 'assistant': {
      if (msg.tool_calls.length === 0) return { role: 'assistant', content: msg.text ?? '' };
      const calls = msg.tool_calls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: wireName(c.name, nameMap), arguments: JSON.stringify(c.arguments ?? {}) },
      }));
      return { role: 'assistant', content: msg.text ? msg.text : null, tool_calls: calls };
    }
    case 'tool': {
      const text = renderToolContent(msg.content);
      return { role: 'tool', tool_call_id: msg.id, content: msg.is_error ? `ERROR: ${text}` : text };
    }
  }
}

function usesCompletionTokens(model: string): boolean {
  const lower = model.toLowerCase();
  return COMPLETION_TOKEN_MODELS.some((p) => lower.startsWith(p));
}

/** Builds the request body and the reverse map for tool names sanitized on the wire. */
export function buildOpenAiRequest(req: ModelRequest): { body: OpenAiBody; nameMap: ToolNameMap } {
  const nameMap: ToolNameMap = new Map();
  const messages: OpenAiMessage[] = [];
  if (req.system.trim() !== '') messages.push({ role: 'system', content: req.system });
  // Tools first so their spelling wins the reverse map over replayed calls of tools no longer offered.
  const tools = req.tools.map((t) => ({
    type: 'function' as const,
    function: { name: wireName(t.name, nameMap), description: t.description, parameters: t.input_schema },
  }));
  for (const m of req.messages) messages.push(toWireMessage(m, nameMap));
  const body: OpenAiBody = { model: req.model, messages };
  if (usesCompletionTokens(req.model)) body.max_completion_tokens = req.maxTokens;
  else body.max_tokens = req.maxTokens;
  body.temperature = req.temperature ?? 0;
  if (tools.length > 0) {
    body.tools = tools;
    body.tool_choice = 'auto';
  }
  // Structured generation where the schema is an object schema; never strict (strict mode rejects most
  // hand-written schemas). The answer is validated against the full schema afterwards anyway (§12).
  if (req.outputSchema && req.outputSchema.type === 'object') {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: 'answer', schema: req.outputSchema, strict: false },
    };
  }
  return { body, nameMap };
}

function intelError(message: string): DaemonError {
  return new DaemonError('intel_fatal', `intel: ${message}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return { _raw: raw };
  }
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
    return { id, name: nameMap.get(fn.name) ?? fn.name, arguments: parseArguments(fn.arguments) };
  });
}

function parseStopReason(reason: unknown): StopReason {
  if (reason === 'stop') return 'end_turn';
  if (reason === 'tool_calls') return 'tool_use';
  if (reason === 'length') return 'max_tokens';
  return 'other';
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/** Parses a response body (already JSON-decoded); throws `intel: …` on an error object or a malformed body. */
export function parseOpenAiResponse(json: unknown, nameMap: ToolNameMap): ModelResponse {
  if (!isRecord(json)) throw intelError('malformed response: not a JSON object');
  if (json.error !== undefined && json.error !== null) {
    const err = json.error;
    const message = isRecord(err) && typeof err.message === 'string' ? err.message : JSON.stringify(err);
    throw intelError(`provider error: ${message}`);
  }
  const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) {
    throw intelError('malformed response: no choices[0].message');
  }
  const usage = isRecord(json.usage) ? json.usage : {};
  const text = parseContent(choice.message.content);
  const response: ModelResponse = {
    toolCalls: parseToolCalls(choice.message.tool_calls, nameMap),
    usage: { input_tokens: count(usage.prompt_tokens), output_tokens: count(usage.completion_tokens) },
    stopReason: parseStopReason(choice.finish_reason),
  };
  if (text !== undefined) response.text = text;
  return response;
}
