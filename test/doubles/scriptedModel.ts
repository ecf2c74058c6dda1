// A scripted OpenAI-compatible chat-completions server for tests and the offline demo (reference A.2.1).
// Playbook: match rules by body substring first, else turns[number of tool messages]; records every request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer (or injected failure). */
export interface Turn {
  /** A string, or an object sent as its JSON text. */
  content?: string | Record<string, unknown> | unknown[];
  tool_calls?: Array<{ name: string; arguments?: unknown }>;
  usage?: { prompt_tokens: number; completion_tokens: number };
  delay_ms?: number;
  finish_reason?: string;
  /** Answer this HTTP status with `body` (default: an OpenAI-style error object). */
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

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it did not parse). */
  body: unknown;
}

export interface ScriptedModel {
  /** `http://127.0.0.1:PORT/v1` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
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
  const usage = turn.usage ?? { prompt_tokens: 11, completion_tokens: calls.length > 0 ? 7 : 5 };
  return {
    id: `chatcmpl-scripted-${seq}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof model === 'string' ? model : 'scripted',
    choices: [{ index: 0, message, finish_reason: turn.finish_reason ?? (calls.length > 0 ? 'tool_calls' : 'stop') }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

function send(res: http.ServerResponse, status: number, body: string): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(body);
}

function answer(res: http.ServerResponse, turn: Turn | null, model: unknown, seq: number): void {
  if (turn === null) send(res, 500, '{"error":{"message":"scripted model: playbook exhausted"}}');
  else if (turn.http_status !== undefined) {
    send(res, turn.http_status, turn.body ?? `{"error":{"message":"scripted HTTP ${turn.http_status}"}}`);
  } else if (turn.raw !== undefined) send(res, 200, turn.raw);
  else send(res, 200, JSON.stringify(completion(turn, model, seq)));
}

function parseBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
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
      if (req.method !== 'POST' || !path.split('?')[0]?.endsWith('/chat/completions')) {
        return send(res, 404, '{"error":{"message":"not found"}}');
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = parseBody(raw);
      requests.push({ path, headers: req.headers, body });
      const turn = chooseTurn(playbook, raw, countToolMessages(body), uses);
      const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
      seq++;
      const n = seq;
      if (!turn?.delay_ms) return answer(res, turn, model, n);
      // A client that hangs up (deadline, cancel) cancels the delay: the server never stays busy for it.
      const timer = setTimeout(() => answer(res, turn, model, n), turn.delay_ms);
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
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
