// The Anthropic Messages side of the scripted model: answers in JSON or SSE (`stream: true`), error bodies,
// and a light request check (the rules the real API enforces and our client must keep). No server here.
import type { Turn } from './scriptedModel.js';

type Block = Record<string, unknown>;

const FINISH_TO_STOP: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' };
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** The signature the double puts on a thinking block: deterministic, so a test can check the replay. */
export function scriptedSignature(thinking: string): string {
  return `sig-${Buffer.from(thinking, 'utf8').toString('base64')}`;
}

/** An Anthropic error body for an injected status. */
export function anthropicErrorBody(status: number, message = `scripted HTTP ${status}`): string {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return JSON.stringify({ type: 'error', error: { type, message } });
}

function turnText(turn: Turn): string | undefined {
  if (turn.content === undefined) return undefined;
  return typeof turn.content === 'string' ? turn.content : JSON.stringify(turn.content);
}

function contentBlocks(turn: Turn, seq: number): Block[] {
  const blocks: Block[] = [];
  if (turn.reasoning !== undefined) {
    blocks.push({ type: 'thinking', thinking: turn.reasoning, signature: scriptedSignature(turn.reasoning) });
  }
  const text = turnText(turn);
  if (text !== undefined && text !== '') blocks.push({ type: 'text', text });
  (turn.tool_calls ?? []).forEach((c, i) => {
    const input = typeof c.arguments === 'string' ? safeParse(c.arguments) : (c.arguments ?? {});
    blocks.push({ type: 'tool_use', id: `toolu_${seq}_${i + 1}`, name: c.name, input });
  });
  return blocks;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { _raw: text };
  }
}

/** A complete Messages response for a turn. */
export function anthropicMessage(turn: Turn, model: unknown, seq: number): Record<string, unknown> {
  const calls = turn.tool_calls ?? [];
  const stop =
    turn.stop_reason ??
    (turn.finish_reason ? (FINISH_TO_STOP[turn.finish_reason] ?? turn.finish_reason) : undefined) ??
    (calls.length > 0 ? 'tool_use' : 'end_turn');
  const usage = turn.usage ?? { prompt_tokens: 11, completion_tokens: calls.length > 0 ? 7 : 5 };
  return {
    id: `msg_scripted_${seq}`,
    type: 'message',
    role: 'assistant',
    model: typeof model === 'string' ? model : 'scripted',
    content: contentBlocks(turn, seq),
    stop_reason: stop,
    stop_sequence: null,
    usage: {
      input_tokens: usage.prompt_tokens,
      output_tokens: usage.completion_tokens,
      ...(usage.cache_read_tokens ? { cache_read_input_tokens: usage.cache_read_tokens } : {}),
      ...(usage.cache_write_tokens ? { cache_creation_input_tokens: usage.cache_write_tokens } : {}),
    },
  };
}

function sse(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

function blockEvents(block: Block, index: number): string[] {
  const out: string[] = [];
  const delta = (d: Record<string, unknown>): void => void out.push(sse('content_block_delta', { index, delta: d }));
  if (block.type === 'text') {
    out.push(sse('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    delta({ type: 'text_delta', text: block.text });
  } else if (block.type === 'thinking') {
    out.push(sse('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } }));
    delta({ type: 'thinking_delta', thinking: block.thinking });
    delta({ type: 'signature_delta', signature: block.signature });
  } else if (block.type === 'tool_use') {
    const start = { type: 'tool_use', id: block.id, name: block.name, input: {} };
    out.push(sse('content_block_start', { index, content_block: start }));
    delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input) });
  } else {
    out.push(sse('content_block_start', { index, content_block: block }));
  }
  out.push(sse('content_block_stop', { index }));
  return out;
}

/** The same message as a Messages SSE stream (message_start, content_block_*, message_delta, message_stop). */
export function anthropicSse(message: Record<string, unknown>): string {
  const usage = message.usage as { input_tokens: number; output_tokens: number };
  const content = message.content as Block[];
  const start = {
    ...message,
    content: [],
    stop_reason: null,
    usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
  };
  const events = [sse('message_start', { message: start })];
  content.forEach((block, i) => {
    events.push(...blockEvents(block, i));
  });
  const stop = { stop_reason: message.stop_reason, stop_sequence: null };
  events.push(sse('message_delta', { delta: stop, usage: { output_tokens: usage.output_tokens } }));
  events.push(sse('message_stop', {}));
  return events.join('');
}

function blocksOf(message: unknown): Block[] {
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content.filter((b) => typeof b === 'object' && b !== null) as Block[]) : [];
}

/** tool_result blocks so far: the double's "number of tool messages" on this wire. */
export function countToolResults(body: unknown): number {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return 0;
  return messages.flatMap(blocksOf).filter((b) => b.type === 'tool_result').length;
}

function checkPairs(messages: unknown[], i: number): string | null {
  const prev = messages[i - 1] as { role?: unknown } | undefined;
  const results = blocksOf(messages[i]).filter((b) => b.type === 'tool_result');
  if (results.length === 0) return null;
  const ids = new Set(prev?.role === 'assistant' ? blocksOf(prev).map((b) => b.id) : []);
  const orphan = results.find((b) => !ids.has(b.tool_use_id));
  return orphan ? `messages.${i}: tool_result ${String(orphan.tool_use_id)} has no tool_use just before it` : null;
}

/** The API's prompt-cache rules: system a string or text blocks, ephemeral breakpoints only, at most 4 of them. */
function checkCacheControl(b: Record<string, unknown>): string | null {
  const system = b.system;
  if (system !== undefined && typeof system !== 'string') {
    if (!Array.isArray(system)) return 'system: must be a string or a list of text blocks';
    const bad = system.findIndex((x) => (x as Block | null)?.type !== 'text' || typeof (x as Block).text !== 'string');
    if (bad >= 0) return `system.${bad}: must be a text block`;
  }
  const marked = [...(Array.isArray(system) ? system : []), ...(Array.isArray(b.tools) ? b.tools : [])]
    .concat(Array.isArray(b.messages) ? b.messages.flatMap(blocksOf) : [])
    .map((x) => (x as Block | null)?.cache_control)
    .filter((c) => c !== undefined);
  if (marked.some((c) => (c as Block | null)?.type !== 'ephemeral')) return 'cache_control.type: must be ephemeral';
  return marked.length > 4 ? `a maximum of 4 blocks with cache_control may be provided. Found ${marked.length}.` : null;
}

/** Null when the body follows the API's rules; else the message of the 400 the real API would answer. */
export function checkAnthropicRequest(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return 'the body is not a JSON object';
  const b = body as Record<string, unknown>;
  const cache = checkCacheControl(b);
  if (cache) return cache;
  if (typeof b.model !== 'string') return 'model: field required';
  if (typeof b.max_tokens !== 'number') return 'max_tokens: field required';
  if (!Array.isArray(b.messages)) return 'messages: field required';
  const thinking = b.thinking as { budget_tokens?: number } | undefined;
  if (thinking && !((thinking.budget_tokens ?? 0) < b.max_tokens)) return 'max_tokens must exceed budget_tokens';
  for (let i = 0; i < b.messages.length; i++) {
    const role = (b.messages[i] as { role?: unknown }).role;
    if (role !== 'user' && role !== 'assistant') return `messages.${i}.role: must be user or assistant`;
    if (i > 0 && (b.messages[i - 1] as { role?: unknown }).role === role) {
      return `messages.${i}: roles must alternate between user and assistant`;
    }
    const pairs = checkPairs(b.messages, i);
    if (pairs) return pairs;
  }
  return null;
}
