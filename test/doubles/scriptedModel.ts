// A scripted model server speaking OpenAI chat completions, Anthropic Messages and Bedrock Converse (reference A.2.1).
// Playbook: match rules by body substring first, else turns[number of tool results]; records every request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  anthropicErrorBody,
  anthropicMessage,
  anthropicSse,
  checkAnthropicRequest,
  countToolResults,
} from './scriptedModelAnthropic.js';
import {
  bedrockErrorBody,
  checkBedrockSignature,
  checkConverseRequest,
  converseModelOf,
  converseResponse,
  countToolResultBlocks,
} from './scriptedModelBedrock.js';

/** One scripted answer (or injected failure). */
export interface Turn {
  /** A string, or an object sent as its JSON text. */
  content?: string | Record<string, unknown> | unknown[];
  tool_calls?: Array<{ name: string; arguments?: unknown }>;
  /**
   * Cache counts go out apart from the input on the Anthropic and Converse wires (as those APIs report), and on
   * the OpenAI wire inside `prompt_tokens` with `prompt_tokens_details.cached_tokens` (cache writes: not reported).
   */
  usage?: { prompt_tokens: number; completion_tokens: number; cache_read_tokens?: number; cache_write_tokens?: number };
  /** Holds the answer this long (a hang, when longer than the client waits); a client hang-up cancels it. */
  delay_ms?: number;
  /** OpenAI's finish reason (`stop`, `length`, `tool_calls`); mapped on the Anthropic wire (`length` → max_tokens). */
  finish_reason?: string;
  /** Anthropic's stop reason (`end_turn`, `max_tokens`, `tool_use`, …); mapped on the OpenAI wire. */
  stop_reason?: string;
  /**
   * Reasoning that comes with the answer: OpenAI `reasoning_content` on the message (and reasoning tokens in usage),
   * Anthropic a `thinking` block with a signature. Without `content` and `tool_calls`: a reasoning-only answer.
   */
  reasoning?: string;
  /** Answer this HTTP status with `body` (default: the wire's own error object). */
  http_status?: number;
  body?: string;
  /** A malformed 200 body, sent verbatim. */
  raw?: string;
  /** Applies only this many times, then falls through to the next candidate. */
  times?: number;
}

export interface MatchRule extends Turn {
  /** A substring of the raw request body. */
  when_contains: string;
}

export interface Playbook {
  turns: Turn[];
  match?: MatchRule[];
}

export type Wire = 'openai' | 'anthropic' | 'bedrock';

export interface RecordedRequest {
  path: string;
  /** From the path: …/chat/completions is openai, …/messages anthropic, …/model/{id}/converse bedrock. */
  wire: Wire;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it did not parse). */
  body: unknown;
}

export interface ScriptedModel {
  /** `http://127.0.0.1:PORT/v1`: an endpoint for openai and anthropic (…/chat/completions, …/messages). */
  url: string;
  /** `http://127.0.0.1:PORT`: a bedrock endpoint (…/model/{modelId}/converse). */
  base: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** The tool names a recorded request offered the model, as spelled on its wire (OpenAI or Anthropic). */
export function offeredTools(r: RecordedRequest | undefined): string[] {
  const body = (r?.body ?? {}) as { tools?: Array<{ name?: string; function?: { name: string } }> };
  return (body.tools ?? []).map((t) => t.function?.name ?? t.name ?? '');
}

/** Picks the answer for a request; a turn with `times` is used up after that many answers. */
export function chooseTurn(
  playbook: Playbook,
  raw: string,
  toolMessages: number,
  uses: Map<Turn, number>,
): Turn | null {
  const available = (t: Turn): boolean => t.times === undefined || (uses.get(t) ?? 0) < t.times;
  const take = (t: Turn): Turn => {
    uses.set(t, (uses.get(t) ?? 0) + 1);
    return t;
  };
  for (const rule of playbook.match ?? []) {
    if (raw.includes(rule.when_contains) && available(rule)) return take(rule);
  }
  const turns = playbook.turns;
  for (let i = Math.min(toolMessages, turns.length - 1); i >= 0 && i < turns.length; i++) {
    const turn = turns[i] as Turn;
    if (available(turn)) return take(turn);
  }
  return null;
}

function countToolMessages(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 0;
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return 0;
  return messages.filter((m) => typeof m === 'object' && m !== null && (m as { role?: unknown }).role === 'tool')
    .length;
}

const STOP_TO_FINISH: Record<string, string> = { end_turn: 'stop', max_tokens: 'length', tool_use: 'tool_calls' };

function finishReason(turn: Turn, calls: number): string {
  if (turn.finish_reason !== undefined) return turn.finish_reason;
  if (turn.stop_reason !== undefined) return STOP_TO_FINISH[turn.stop_reason] ?? turn.stop_reason;
  return calls > 0 ? 'tool_calls' : 'stop';
}

function openAiUsage(u: NonNullable<Turn['usage']>): Record<string, unknown> {
  const cached = u.cache_read_tokens ?? 0;
  const prompt = u.prompt_tokens + cached;
  const usage: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: u.completion_tokens,
    total_tokens: prompt + u.completion_tokens,
  };
  if (cached > 0) usage.prompt_tokens_details = { cached_tokens: cached };
  return usage;
}

function completion(turn: Turn, model: unknown, seq: number): Record<string, unknown> {
  const calls = turn.tool_calls ?? [];
  const content =
    turn.content === undefined ? null : typeof turn.content === 'string' ? turn.content : JSON.stringify(turn.content);
  const message: Record<string, unknown> = { role: 'assistant', content };
  if (calls.length > 0) {
    message.tool_calls = calls.map((c, i) => ({
      id: `call_${i + 1}`,
      type: 'function',
      function: {
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
      },
    }));
  }
  const usage = openAiUsage(turn.usage ?? { prompt_tokens: 11, completion_tokens: calls.length > 0 ? 7 : 5 });
  if (turn.reasoning !== undefined) {
    message.reasoning_content = turn.reasoning;
    usage.completion_tokens_details = { reasoning_tokens: Math.max(1, Math.ceil(turn.reasoning.length / 4)) };
  }
  return {
    id: `chatcmpl-scripted-${seq}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof model === 'string' ? model : 'scripted',
    choices: [{ index: 0, message, finish_reason: finishReason(turn, calls.length) }],
    usage,
  };
}

function send(res: http.ServerResponse, status: number, body: string, type = 'application/json'): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': type, connection: 'close' });
  res.end(body);
}

function errorBody(wire: Wire, status: number, message?: string): string {
  if (wire === 'anthropic') return anthropicErrorBody(status, message);
  if (wire === 'bedrock') return bedrockErrorBody(status, message);
  return JSON.stringify({ error: { message: message ?? `scripted HTTP ${status}` } });
}

interface Exchange {
  wire: Wire;
  body: unknown;
  model: unknown;
  seq: number;
}

function answer(res: http.ServerResponse, turn: Turn | null, x: Exchange): void {
  if (turn === null) send(res, 500, errorBody(x.wire, 500, 'scripted model: playbook exhausted'));
  else if (turn.http_status !== undefined) {
    send(res, turn.http_status, turn.body ?? errorBody(x.wire, turn.http_status));
  } else if (turn.raw !== undefined) send(res, 200, turn.raw);
  else if (x.wire === 'openai') send(res, 200, JSON.stringify(completion(turn, x.model, x.seq)));
  else if (x.wire === 'bedrock') send(res, 200, JSON.stringify(converseResponse(turn, String(x.model), x.seq)));
  else {
    const message = anthropicMessage(turn, x.model, x.seq);
    const stream = (x.body as { stream?: unknown } | null)?.stream === true;
    if (stream) send(res, 200, anthropicSse(message), 'text/event-stream');
    else send(res, 200, JSON.stringify(message));
  }
}

function parseBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function wireOf(path: string): Wire | null {
  const bare = path.split('?')[0] ?? '';
  if (bare.endsWith('/chat/completions')) return 'openai';
  if (bare.endsWith('/messages')) return 'anthropic';
  if (converseModelOf(bare) !== null) return 'bedrock';
  return null;
}

/** The 4xx the real API would answer before choosing a turn, or null. */
function refusal(wire: Wire, headers: http.IncomingHttpHeaders, body: unknown): [number, string] | null {
  if (wire === 'anthropic') {
    const problem = checkAnthropicRequest(body);
    return problem === null ? null : [400, anthropicErrorBody(400, problem)];
  }
  if (wire === 'bedrock') {
    const unsigned = checkBedrockSignature(headers);
    if (unsigned !== null) return [403, bedrockErrorBody(403, unsigned)];
    const problem = checkConverseRequest(body);
    return problem === null ? null : [400, bedrockErrorBody(400, problem)];
  }
  return null;
}

function toolResultsOf(wire: Wire, body: unknown): number {
  if (wire === 'openai') return countToolMessages(body);
  return wire === 'anthropic' ? countToolResults(body) : countToolResultBlocks(body);
}

function modelOf(wire: Wire, path: string, body: unknown): unknown {
  if (wire === 'bedrock') return converseModelOf(path);
  return typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
}

/** Starts the server on 127.0.0.1 (port 0 unless given). */
export async function startScriptedModel(playbook: Playbook, opts: { port?: number } = {}): Promise<ScriptedModel> {
  const requests: RecordedRequest[] = [];
  const uses = new Map<Turn, number>();
  let seq = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const wire = wireOf(path);
      if (req.method !== 'POST' || wire === null) return send(res, 404, '{"error":{"message":"not found"}}');
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = parseBody(raw);
      requests.push({ path, wire, headers: req.headers, body });
      const refused = refusal(wire, req.headers, body);
      if (refused !== null) return send(res, refused[0], refused[1]);
      const turn = chooseTurn(playbook, raw, toolResultsOf(wire, body), uses);
      const exchange: Exchange = { wire, body, model: modelOf(wire, path, body), seq: ++seq };
      if (!turn?.delay_ms) return answer(res, turn, exchange);
      // A client that hangs up (deadline, cancel) cancels the delay: the server never stays busy for it.
      const timer = setTimeout(() => answer(res, turn, exchange), turn.delay_ms);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
