// One table entry per wire dialect: the endpoint URL, the auth headers, the body builder and the parser.
// Pure (no I/O) but for Bedrock's signing step; `modelClient.ts` is the shell that sends what this builds.
import { DaemonError } from '../errors.js';
import type { Dialect, IntelligenceSpec } from '../protocol/frames.js';
import { buildAnthropicRequest, parseAnthropicResponse } from './anthropicWire.js';
import { signAwsRequest } from './awsSigner.js';
import { bedrockUrl, buildBedrockRequest, parseBedrockResponse } from './bedrockWire.js';
import type { ModelResponse, ToolNameMap, WireRequest } from './modelRequest.js';
import { buildOpenAiRequest, parseOpenAiResponse } from './openaiWire.js';

const ANTHROPIC_VERSION = '2023-06-01';

export interface DialectWire {
  /** The request URL for one configured endpoint and wire model (throws on an invalid URL). */
  url(endpoint: string, model: string): URL;
  headers(spec: Pick<IntelligenceSpec, 'token' | 'headers'>): Record<string, string>;
  /** Signs one attempt (the request date is part of it): returns the headers to send. Absent ⇒ `headers` as is. */
  sign?(spec: IntelligenceSpec, url: URL, body: string, headers: Record<string, string>, now: Date): Promise<Headers>;
  build(req: WireRequest): { body: unknown; nameMap: ToolNameMap };
  parse(json: unknown, nameMap: ToolNameMap, model: string): ModelResponse;
}

type Headers = Record<string, string>;

function trimEndpoint(endpoint: string): string {
  return endpoint.trim().replace(/\/+$/, '');
}

/** OpenAI: a base (e.g. ending in /v1) gets `/chat/completions` appended; a full URL is kept. */
export function openAiUrl(endpoint: string): URL {
  const trimmed = trimEndpoint(endpoint);
  return new URL(trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`);
}

/** Anthropic: a full …/messages URL is kept; a base ending in /v1 gets `/messages`; any other base `/v1/messages`. */
export function anthropicUrl(endpoint: string): URL {
  const trimmed = trimEndpoint(endpoint);
  if (trimmed.endsWith('/messages')) return new URL(trimmed);
  return new URL(trimmed.endsWith('/v1') ? `${trimmed}/messages` : `${trimmed}/v1/messages`);
}

function configuredHeaders(spec: Pick<IntelligenceSpec, 'headers'>): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [k, v] of spec.headers) headers[k.toLowerCase()] = v;
  return headers;
}

/** OpenAI: configured headers, then `authorization: Bearer <token>` when there is a token. */
export function openAiHeaders(spec: Pick<IntelligenceSpec, 'token' | 'headers'>): Record<string, string> {
  const headers = configuredHeaders(spec);
  if (spec.token) headers.authorization = `Bearer ${spec.token}`;
  return headers;
}

/**
 * Anthropic auth rule: by default the token goes in `x-api-key`. When the configured headers name `authorization`,
 * Bearer mode applies and no `x-api-key` is sent: the value `Bearer` alone (any case) becomes
 * `Bearer <token>`; any other value is sent as given. `anthropic-version` defaults to 2023-06-01 and a configured
 * one wins.
 */
export function anthropicHeaders(spec: Pick<IntelligenceSpec, 'token' | 'headers'>): Record<string, string> {
  const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION, ...configuredHeaders(spec) };
  const auth = headers.authorization;
  if (auth === undefined) {
    if (spec.token) headers['x-api-key'] = spec.token;
    return headers;
  }
  delete headers['x-api-key'];
  if (auth.trim().toLowerCase() === 'bearer') {
    if (spec.token) headers.authorization = `Bearer ${spec.token}`;
    else delete headers.authorization;
  }
  return headers;
}

export const DIALECTS: Readonly<Record<Dialect, DialectWire>> = {
  openai: {
    url: openAiUrl,
    headers: openAiHeaders,
    build: buildOpenAiRequest,
    parse: parseOpenAiResponse,
  },
  anthropic: {
    url: anthropicUrl,
    headers: anthropicHeaders,
    build: buildAnthropicRequest,
    parse: parseAnthropicResponse,
  },
  bedrock: {
    url: bedrockUrl,
    // No token: SigV4 signs with the spec's AWS keys (configured headers are sent and signed too).
    headers: configuredHeaders,
    sign: signBedrock,
    build: buildBedrockRequest,
    parse: parseBedrockResponse,
  },
};

function signBedrock(spec: IntelligenceSpec, url: URL, body: string, headers: Headers, now: Date): Promise<Headers> {
  if (!spec.aws) throw new DaemonError('intel_fatal', 'intel: the bedrock dialect needs AWS credentials (auth)');
  return signAwsRequest(spec.aws, url, body, headers, now);
}
