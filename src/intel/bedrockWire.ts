// Amazon Bedrock Converse wire format (reference §5.1, §5.3, §12): `POST /model/{modelId}/converse`. The transcript
// rules are Anthropic's (system hoisted, alternating turns, tool results as user content), so the body is built as
// an Anthropic body and its blocks re-shaped into Converse's; a response is re-shaped the other way and parsed by
// the Anthropic parser. Pure: no I/O; signing happens in the client (awsSigner.ts).
import type { AnthropicBlock, AnthropicBody } from './anthropicWire.js';
import { buildAnthropicRequest, parseAnthropicResponse, systemText } from './anthropicWire.js';
import type { ModelResponse, ToolNameMap, WireRequest } from './modelRequest.js';
import { intelError, isRecord, providerError } from './modelRequest.js';

type ConverseBlock = Record<string, unknown>;

/** The text of a tool result that came back empty. */
export const NO_OUTPUT = '(no output)';

export interface ConverseBody {
  messages: Array<{ role: 'user' | 'assistant'; content: ConverseBlock[] }>;
  system?: Array<{ text: string }>;
  inferenceConfig: { maxTokens: number; temperature?: number };
  toolConfig?: {
    tools: Array<{ toolSpec: { name: string; description: string; inputSchema: { json: unknown } } }>;
    toolChoice: { auto: Record<string, never> };
  };
  /** Claude's own request fields: `thinking` and `output_config` (reference §12: "the same in its request fields"). */
  additionalModelRequestFields?: Record<string, unknown>;
}

/** Bedrock: `<base>/model/<url-encoded model id>/converse`; a full …/converse URL is kept. */
export function bedrockUrl(endpoint: string, model: string): URL {
  const trimmed = endpoint.trim().replace(/\/+$/, '');
  if (trimmed.endsWith('/converse')) return new URL(trimmed);
  return new URL(`${trimmed}/model/${encodeURIComponent(model)}/converse`);
}

function toConverseBlock(block: AnthropicBlock): ConverseBlock {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'tool_use':
      return { toolUse: { toolUseId: block.id, name: block.name, input: block.input } };
    case 'tool_result': {
      const text = typeof block.content === 'string' ? block.content : '';
      return {
        toolResult: {
          toolUseId: block.tool_use_id,
          // Converse refuses a blank text block, and a failed tool may have printed nothing.
          content: [{ text: text.trim() === '' ? NO_OUTPUT : text }],
          status: block.is_error ? 'error' : 'success',
        },
      };
    }
    case 'thinking':
      return { reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } };
    case 'redacted_thinking':
      return { reasoningContent: { redactedContent: block.data } };
    default:
      throw intelError(`cannot send a ${String(block.type)} block on the bedrock wire`);
  }
}

/** Reasoning parts came tagged `bedrock`; the Anthropic builder replays parts tagged `anthropic`. */
function retagged(req: WireRequest): WireRequest {
  if (req.reasoning === undefined) return req;
  const reasoning = new Map<WireRequest['messages'][number], unknown>();
  for (const [msg, entry] of req.reasoning) {
    if (isRecord(entry) && entry.dialect === 'bedrock') reasoning.set(msg, { ...entry, dialect: 'anthropic' });
  }
  return { ...req, reasoning };
}

function converseBody(anthropic: AnthropicBody, temperature: number | undefined): ConverseBody {
  const body: ConverseBody = {
    messages: anthropic.messages.map((m) => ({ role: m.role, content: m.content.map(toConverseBlock) })),
    inferenceConfig: { maxTokens: anthropic.max_tokens },
  };
  if (temperature !== undefined) body.inferenceConfig.temperature = temperature;
  if (anthropic.system !== undefined) body.system = [{ text: systemText(anthropic.system) }];
  if (anthropic.tools !== undefined) {
    const tools = anthropic.tools.map((t) => ({
      toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.input_schema } },
    }));
    body.toolConfig = { tools, toolChoice: { auto: {} } };
  }
  const extra: Record<string, unknown> = {};
  if (anthropic.thinking !== undefined) extra.thinking = anthropic.thinking;
  if (anthropic.output_config !== undefined) extra.output_config = anthropic.output_config;
  if (Object.keys(extra).length > 0) body.additionalModelRequestFields = extra;
  return body;
}

/** Builds the Converse body (the model id goes in the URL) and the reverse map of sanitized tool names. */
export function buildBedrockRequest(req: WireRequest): { body: ConverseBody; nameMap: ToolNameMap } {
  const { body, nameMap } = buildAnthropicRequest(retagged(req));
  return { body: converseBody(body, req.temperature), nameMap };
}

function toAnthropicBlock(block: unknown, i: number): Record<string, unknown> {
  if (!isRecord(block)) throw intelError(`malformed response: content block ${i} is not an object`);
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (isRecord(block.toolUse)) {
    const { toolUseId, name, input } = block.toolUse;
    return { type: 'tool_use', id: toolUseId, name, input };
  }
  const reasoning = block.reasoningContent;
  if (isRecord(reasoning) && isRecord(reasoning.reasoningText)) {
    const { text, signature } = reasoning.reasoningText;
    return { type: 'thinking', thinking: text, ...(signature !== undefined ? { signature } : {}) };
  }
  if (isRecord(reasoning) && reasoning.redactedContent !== undefined) {
    return { type: 'redacted_thinking', data: reasoning.redactedContent };
  }
  return { type: 'other' };
}

/**
 * Parses a Converse response (already JSON-decoded). Input is `inputTokens` alone; `cacheReadInputTokens` and
 * `cacheWriteInputTokens` are reported apart (issue 13 item 11). Throws `intel: …` on an error or a malformed body.
 */
export function parseBedrockResponse(json: unknown, nameMap: ToolNameMap, model = ''): ModelResponse {
  if (!isRecord(json)) throw intelError('malformed response: not a JSON object');
  const message = isRecord(json.output) ? json.output.message : undefined;
  if (!isRecord(message)) {
    if (typeof json.message === 'string') throw providerError(json);
    throw intelError('malformed response: no output.message');
  }
  if (!Array.isArray(message.content)) throw intelError('malformed response: no output.message.content array');
  const u = isRecord(json.usage) ? json.usage : {};
  const anthropic = {
    content: message.content.map(toAnthropicBlock),
    stop_reason: json.stopReason,
    usage: {
      input_tokens: u.inputTokens,
      output_tokens: u.outputTokens,
      cache_read_input_tokens: u.cacheReadInputTokens,
      cache_creation_input_tokens: u.cacheWriteInputTokens,
    },
  };
  const response = parseAnthropicResponse(anthropic, nameMap, model);
  if (response.reasoning !== undefined) response.reasoning = { ...response.reasoning, dialect: 'bedrock' };
  return response;
}
