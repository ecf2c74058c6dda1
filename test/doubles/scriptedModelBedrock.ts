// The Bedrock Converse side of the scripted model (`POST /model/{modelId}/converse`): answers in Converse's shape,
// AWS-style error bodies, and the checks the real service makes first — a SigV4 Authorization header of the right
// shape (403 without one) and a well-formed body (400). No server here; the signature's value is not recomputed.
import type { IncomingHttpHeaders } from 'node:http';
import type { Turn } from './scriptedModel.js';
import { anthropicMessage } from './scriptedModelAnthropic.js';

type Block = Record<string, unknown>;

const ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

/** `AWS4-HMAC-SHA256 Credential=<key id>/<yyyymmdd>/<region>/bedrock/aws4_request, SignedHeaders=…, Signature=<hex>` */
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([a-z0-9-]+)\/bedrock\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

/** The signature's parts, as a test reads them off a recorded request. */
export interface SigV4Parts {
  keyId: string;
  date: string;
  region: string;
  signedHeaders: string[];
}

/** The model id of a Converse path, or null when the path is not one. */
export function converseModelOf(path: string): string | null {
  const match = /\/model\/([^/]+)\/converse$/.exec(path.split('?')[0] ?? '');
  return match?.[1] === undefined ? null : decodeURIComponent(match[1]);
}

/** An AWS JSON error body for an injected status (the type also goes in `x-amzn-errortype`). */
export function bedrockErrorBody(status: number, message = `scripted HTTP ${status}`): string {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException');
  return JSON.stringify({ __type: type, message });
}

/** Parses the Authorization header; null when it is missing or not SigV4-shaped for service `bedrock`. */
export function sigV4Parts(headers: IncomingHttpHeaders): SigV4Parts | null {
  const match = AUTHORIZATION.exec(String(headers.authorization ?? ''));
  if (!match) return null;
  const [, keyId = '', date = '', region = '', signed = ''] = match;
  return { keyId, date, region, signedHeaders: signed.split(';') };
}

/** Null when the request is signed in the right shape; else the message of the 403 the service would answer. */
export function checkBedrockSignature(headers: IncomingHttpHeaders): string | null {
  const parts = sigV4Parts(headers);
  if (parts === null) return 'Missing Authentication Token';
  const amzDate = String(headers['x-amz-date'] ?? '');
  if (!/^\d{8}T\d{6}Z$/.test(amzDate) || !amzDate.startsWith(parts.date)) return 'X-Amz-Date is missing or wrong';
  for (const name of ['host', 'x-amz-date']) {
    if (!parts.signedHeaders.includes(name)) return `SignedHeaders does not include ${name}`;
  }
  if (headers['x-amz-security-token'] !== undefined && !parts.signedHeaders.includes('x-amz-security-token')) {
    return 'the session token is not signed';
  }
  return null;
}

function blocksOf(message: unknown): Block[] {
  const content = (message as { content?: unknown } | null)?.content;
  return Array.isArray(content) ? (content.filter((b) => typeof b === 'object' && b !== null) as Block[]) : [];
}

/** toolResult blocks so far: the double's "number of tool messages" on this wire. */
export function countToolResultBlocks(body: unknown): number {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return 0;
  return messages.flatMap(blocksOf).filter((b) => b.toolResult !== undefined).length;
}

function checkMessage(messages: unknown[], i: number): string | null {
  const role = (messages[i] as { role?: unknown }).role;
  if (role !== 'user' && role !== 'assistant') return `messages.${i}.role: must be user or assistant`;
  if (i > 0 && (messages[i - 1] as { role?: unknown }).role === role) {
    return `messages.${i}: a conversation must alternate between user and assistant roles`;
  }
  const ids = new Set(
    blocksOf(messages[i - 1]).map((b) => (b.toolUse as { toolUseId?: unknown } | undefined)?.toolUseId),
  );
  for (const block of blocksOf(messages[i])) {
    const result = block.toolResult as { toolUseId?: unknown } | undefined;
    if (result && !ids.has(result.toolUseId))
      return `messages.${i}: toolResult ${String(result.toolUseId)} has no toolUse`;
  }
  return null;
}

/** Null when the Converse body follows the service's rules; else the message of the 400 it would answer. */
export function checkConverseRequest(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return 'the body is not a JSON object';
  const b = body as Record<string, unknown>;
  if (!Array.isArray(b.messages) || b.messages.length === 0) return 'messages: field required';
  const inference = b.inferenceConfig as { maxTokens?: unknown } | undefined;
  if (typeof inference?.maxTokens !== 'number') return 'inferenceConfig.maxTokens: field required';
  if (b.model !== undefined) return 'model: the model id goes in the path, not the body';
  for (let i = 0; i < b.messages.length; i++) {
    const problem = checkMessage(b.messages, i);
    if (problem) return problem;
  }
  return null;
}

function toConverse(block: Block): Block {
  if (block.type === 'text') return { text: block.text };
  if (block.type === 'tool_use') return { toolUse: { toolUseId: block.id, name: block.name, input: block.input } };
  return { reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } };
}

/** A complete Converse response for a turn: the Anthropic answer's blocks in Converse's shapes. */
export function converseResponse(turn: Turn, model: string, seq: number): Record<string, unknown> {
  const message = anthropicMessage(turn, model, seq);
  const u = turn.usage ?? { prompt_tokens: 11, completion_tokens: (turn.tool_calls ?? []).length > 0 ? 7 : 5 };
  const usage: Record<string, number> = {
    inputTokens: u.prompt_tokens,
    outputTokens: u.completion_tokens,
    totalTokens: u.prompt_tokens + u.completion_tokens,
  };
  if (u.cache_read_tokens) usage.cacheReadInputTokens = u.cache_read_tokens;
  if (u.cache_write_tokens) usage.cacheWriteInputTokens = u.cache_write_tokens;
  const content = (message.content as Block[]).map(toConverse);
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: message.stop_reason,
    usage,
    metrics: { latencyMs: 1 },
  };
}
