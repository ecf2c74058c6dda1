// Anthropic Messages wire format (reference §5.3, §8.3, §12): every system message hoisted into `system`,
// tool_use / tool_result blocks, thinking replay. Pure: no I/O; a malformed answer throws `intel: …`.
import type { Msg, ToolCall } from '../protocol/messages.js';
import type { ModelResponse, StopReason, ToolNameMap, WireRequest } from './modelRequest.js';
import {
  intelError,
  isRecord,
  parseToolArguments,
  providerError,
  renderToolContent,
  replayParts,
  usageOf,
  wireToolName,
} from './modelRequest.js';

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean }
  /** A replayed `thinking` / `redacted_thinking` block, exactly as received. */
  | Record<string, unknown>;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

/** A prompt-cache breakpoint: the provider caches the request up to and including the block that carries it. */
export const CACHE_BREAKPOINT = { type: 'ephemeral' } as const;

export interface AnthropicSystemBlock {
  type: 'text';
  text: string;
  cache_control?: typeof CACHE_BREAKPOINT;
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: unknown;
  cache_control?: typeof CACHE_BREAKPOINT;
}

/** No `temperature` field, ever (reference §5.3). */
export interface AnthropicBody {
  model: string;
  max_tokens: number;
  /** Blocks when there is a system prompt to mark for the cache; a string when only hoisted messages remain. */
  system?: string | AnthropicSystemBlock[];
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
  thinking?: { type: 'enabled'; budget_tokens: number };
  output_config?: { format: { type: 'json_schema'; schema: unknown } };
}

const THINKING_TYPES = new Set(['thinking', 'redacted_thinking']);

function isThinkingBlock(v: unknown): v is Record<string, unknown> {
  return isRecord(v) && typeof v.type === 'string' && THINKING_TYPES.has(v.type);
}

function assistantBlocks(msg: Extract<Msg, { role: 'assistant' }>, req: WireRequest, nameMap: ToolNameMap) {
  const blocks: AnthropicBlock[] = [];
  // Thinking blocks go first, as they came: the API checks their signatures against the tool_use that follows.
  const replay = replayParts(req, msg, 'anthropic');
  if (Array.isArray(replay)) blocks.push(...replay.filter(isThinkingBlock));
  if (msg.text) blocks.push({ type: 'text', text: msg.text });
  for (const c of msg.tool_calls) {
    blocks.push({ type: 'tool_use', id: c.id, name: wireToolName(c.name, nameMap), input: c.arguments ?? {} });
  }
  return blocks;
}

/** Appends blocks, merging into the previous message of the same role: the API wants user/assistant alternating. */
function pushBlocks(out: AnthropicMessage[], role: AnthropicMessage['role'], blocks: AnthropicBlock[]): void {
  if (blocks.length === 0) return;
  const last = out.at(-1);
  if (last?.role === role) last.content.push(...blocks);
  else out.push({ role, content: blocks });
}

/** Splits the transcript into hoisted system text and alternating user/assistant messages. */
function convertTranscript(req: WireRequest, nameMap: ToolNameMap): { system: string[]; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  for (const msg of req.messages) {
    switch (msg.role) {
      case 'system':
        system.push(msg.text);
        break;
      case 'note':
        system.push(`[note] ${msg.text}`);
        break;
      case 'user':
        pushBlocks(messages, 'user', msg.text === '' ? [] : [{ type: 'text', text: msg.text }]);
        break;
      case 'assistant':
        pushBlocks(messages, 'assistant', assistantBlocks(msg, req, nameMap));
        break;
      case 'tool': {
        const block = {
          type: 'tool_result' as const,
          tool_use_id: msg.id,
          content: renderToolContent(msg.content),
          is_error: msg.is_error,
        };
        pushBlocks(messages, 'user', [block]);
        break;
      }
    }
  }
  return { system, messages };
}

/**
 * The top-level system: the system prompt as its own block with a cache breakpoint (the cache holds tools, then
 * system, then messages: reference §8.2's stable prefix), then the hoisted summary, plan and notes, which change
 * from turn to turn, as a second block after it. Without a prompt, the hoisted text alone as a string.
 */
function systemField(prompt: string, hoisted: string[]): AnthropicBody['system'] {
  const rest = hoisted.join('\n\n');
  if (prompt.trim() === '') return hoisted.length > 0 ? rest : undefined;
  const blocks: AnthropicSystemBlock[] = [{ type: 'text', text: prompt, cache_control: CACHE_BREAKPOINT }];
  if (hoisted.length > 0) blocks.push({ type: 'text', text: rest });
  return blocks;
}

/** The system field as one text (blocks joined by a blank line, as the hoisting joins messages). */
export function systemText(system: AnthropicBody['system']): string {
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((b) => b.text).join('\n\n');
}

/** Builds the request body and the reverse map for tool names sanitized on the wire. */
export function buildAnthropicRequest(req: WireRequest): { body: AnthropicBody; nameMap: ToolNameMap } {
  const nameMap: ToolNameMap = new Map();
  // Tools first so their spelling wins the reverse map over replayed calls of tools no longer offered.
  const tools: AnthropicTool[] = req.tools.map((t) => ({
    name: wireToolName(t.name, nameMap),
    description: t.description,
    input_schema: t.input_schema,
  }));
  // The first breakpoint closes the tool list: a turn whose system prompt changed still reads the tools cached.
  const lastTool = tools.at(-1);
  if (lastTool) lastTool.cache_control = CACHE_BREAKPOINT;
  const { system: hoisted, messages } = convertTranscript(req, nameMap);
  const body: AnthropicBody = { model: req.model, max_tokens: req.maxTokens, messages };
  const system = systemField(req.system, hoisted);
  if (system !== undefined) body.system = system;
  if (tools.length > 0) body.tools = tools;
  if (req.thinkingBudget !== undefined) body.thinking = { type: 'enabled', budget_tokens: req.thinkingBudget };
  if (req.outputSchema !== undefined) {
    body.output_config = { format: { type: 'json_schema', schema: req.outputSchema } };
  }
  return { body, nameMap };
}

function parseStopReason(reason: unknown): StopReason {
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'end_turn';
  if (reason === 'tool_use') return 'tool_use';
  if (reason === 'max_tokens') return 'max_tokens';
  return 'other';
}

function parseToolUse(block: Record<string, unknown>, i: number, nameMap: ToolNameMap): ToolCall {
  if (typeof block.name !== 'string') throw intelError(`malformed response: tool_use block ${i} has no name`);
  const id = typeof block.id === 'string' && block.id !== '' ? block.id : `toolu_${i + 1}`;
  return { id, name: nameMap.get(block.name) ?? block.name, arguments: parseToolArguments(block.input) };
}

/**
 * Input is `input_tokens` alone (reference §5.3): the API reports prompt-cache writes and reads apart, and adding
 * them would spend limits and budgets on tokens the provider did not process as new input.
 */
function parseUsage(raw: unknown): ModelResponse['usage'] {
  const u = isRecord(raw) ? raw : {};
  return usageOf(u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens);
}

/**
 * Parses a Messages response (already JSON-decoded); throws `intel: …` on an error object or a malformed body.
 * `model` tags the thinking blocks so they are replayed only to the model that produced them.
 */
export function parseAnthropicResponse(json: unknown, nameMap: ToolNameMap, model = ''): ModelResponse {
  if (!isRecord(json)) throw intelError('malformed response: not a JSON object');
  if (json.type === 'error' || (json.error !== undefined && json.error !== null)) throw providerError(json.error);
  if (!Array.isArray(json.content)) throw intelError('malformed response: no content array');
  let text = '';
  const toolCalls: ToolCall[] = [];
  const thinking: Record<string, unknown>[] = [];
  json.content.forEach((block, i) => {
    if (!isRecord(block)) throw intelError(`malformed response: content block ${i} is not an object`);
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'tool_use') toolCalls.push(parseToolUse(block, i, nameMap));
    else if (isThinkingBlock(block)) thinking.push(block);
  });
  const stopReason = parseStopReason(json.stop_reason);
  // A tool_use cut off by the length limit carries whatever input was parsed so far: mark it unparsable, as the
  // OpenAI wire does for truncated arguments, so it never runs (seed 003's truncated-arguments check).
  const last = json.content.at(-1) as Record<string, unknown> | undefined;
  const lastCall = toolCalls.at(-1);
  if (stopReason === 'max_tokens' && last?.type === 'tool_use' && lastCall) {
    lastCall.arguments = { _raw: JSON.stringify(lastCall.arguments ?? {}) };
  }
  const response: ModelResponse = {
    toolCalls,
    usage: parseUsage(json.usage),
    stopReason,
    hasReasoning: thinking.length > 0,
  };
  if (text !== '') response.text = text;
  if (thinking.length > 0) response.reasoning = { model, dialect: 'anthropic', parts: thinking };
  return response;
}
