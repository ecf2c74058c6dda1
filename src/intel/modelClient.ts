// One logical model call: endpoint URL, headers, same-endpoint retries, failover across endpoints (reference §5.1).
// Errors are `intel: …` DaemonErrors that never carry the token, headers or credentials in URLs.
import { DaemonError, describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { redact, silentLogger } from '../obs/log.js';
import type { IntelligenceSpec } from '../protocol/frames.js';
import type { HttpResponse } from './httpPost.js';
import { AbortError, httpPost, isAbortError, TransportError } from './httpPost.js';
import type { ModelRequest, ModelResponse, ToolNameMap } from './openaiWire.js';
import { buildOpenAiRequest, parseOpenAiResponse } from './openaiWire.js';

export interface CallModelOptions {
  log?: Logger;
  /** Per-request ceiling; the caller's signal (turn deadline) still bounds it. Default 120 000 ms. */
  timeoutMs?: number;
  /** Waits before the 2nd and 3rd attempt on one endpoint. Default [250, 500]. */
  backoffMs?: readonly number[];
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_BACKOFF_MS = [250, 500] as const;
const SHORT_BODY_CHARS = 200;

/** The chat-completions URL for an endpoint: a base (e.g. ending in /v1) gets `/chat/completions` appended. */
export function endpointUrl(endpoint: string): URL {
  const trimmed = endpoint.trim().replace(/\/+$/, '');
  if (trimmed.endsWith('/chat/completions')) return new URL(trimmed);
  return new URL(`${trimmed}/chat/completions`);
}

/** Host and port only: never the path, query or userinfo of an endpoint. */
function hostOf(url: URL): string {
  return url.host;
}

type Attempt = { ok: true; response: ModelResponse } | { ok: false; retryable: boolean; error: string };

function shortBody(body: string, token: string | null): string {
  let text = body.replace(/\s+/g, ' ').trim();
  if (token) text = text.split(token).join('[redacted]');
  text = redact(text);
  return text.length > SHORT_BODY_CHARS ? `${text.slice(0, SHORT_BODY_CHARS)}…` : text;
}

function requestHeaders(spec: IntelligenceSpec): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [k, v] of spec.headers) headers[k.toLowerCase()] = v;
  if (spec.token) headers.authorization = `Bearer ${spec.token}`;
  return headers;
}

function classifyResponse(res: HttpResponse, url: URL, spec: IntelligenceSpec, nameMap: ToolNameMap): Attempt {
  const host = hostOf(url);
  if (res.status === 429 || res.status >= 500) {
    return { ok: false, retryable: true, error: `HTTP ${res.status} from ${host}: ${shortBody(res.body, spec.token)}` };
  }
  if (res.status < 200 || res.status >= 300) {
    throw new DaemonError('intel_fatal', `intel: HTTP ${res.status} from ${host}: ${shortBody(res.body, spec.token)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    throw new DaemonError('intel_fatal', `intel: malformed response from ${host}: the body is not JSON`);
  }
  return { ok: true, response: parseOpenAiResponse(json, nameMap) };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new AbortError());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

interface CallContext {
  spec: IntelligenceSpec;
  body: string;
  headers: Record<string, string>;
  nameMap: ToolNameMap;
  signal: AbortSignal;
  log: Logger;
  timeoutMs: number;
  backoffMs: readonly number[];
}

async function attemptOnce(ctx: CallContext, url: URL): Promise<Attempt> {
  try {
    const res = await httpPost(url, ctx.body, ctx.headers, { signal: ctx.signal, timeoutMs: ctx.timeoutMs });
    return classifyResponse(res, url, ctx.spec, ctx.nameMap);
  } catch (err) {
    if (isAbortError(err) || !(err instanceof TransportError)) throw err;
    return { ok: false, retryable: true, error: `cannot reach ${hostOf(url)}: ${redact(describeError(err))}` };
  }
}

/** Tries one endpoint up to 1 + backoff.length times; returns the last retryable failure. */
async function tryEndpoint(ctx: CallContext, index: number): Promise<Attempt> {
  let url: URL;
  try {
    url = endpointUrl(ctx.spec.endpoints[index] as string);
  } catch {
    // The URL text may hold credentials: name the endpoint by its index only.
    throw new DaemonError('intel_fatal', `intel: endpoint ${index} is not a valid URL`);
  }
  let last: Attempt = { ok: false, retryable: true, error: 'not attempted' };
  for (let attempt = 0; attempt <= ctx.backoffMs.length; attempt++) {
    last = await attemptOnce(ctx, url);
    if (last.ok) return last;
    const delay = ctx.backoffMs[attempt];
    const next = delay !== undefined ? 'same' : index + 1 < ctx.spec.endpoints.length ? 'next' : 'none';
    if (next === 'none') break;
    ctx.log.warn('intel.retry', {
      endpoint: index,
      host: hostOf(url),
      attempt: attempt + 1,
      err: last.error,
      next,
      delay_ms: delay ?? 0,
    });
    if (delay === undefined) break;
    await sleep(delay, ctx.signal);
  }
  return last;
}

/**
 * Calls the model once, logically: retries 429/5xx/transport errors on the same endpoint (250 then 500 ms),
 * then fails over to the next endpoint. Other 4xx and malformed bodies fail at once. An abort of `signal`
 * rejects promptly with an AbortError (see `isAbortError`).
 */
export async function callModel(
  spec: IntelligenceSpec,
  request: ModelRequest,
  signal: AbortSignal,
  opts: CallModelOptions = {},
): Promise<ModelResponse> {
  if (spec.dialect !== 'openai') {
    throw new DaemonError('intel_fatal', `intel: dialect '${spec.dialect}' is not supported in this build`);
  }
  if (spec.endpoints.length === 0) throw new DaemonError('intel_fatal', 'intel: no model endpoint is configured');
  const { body, nameMap } = buildOpenAiRequest(request);
  const ctx: CallContext = {
    spec,
    body: JSON.stringify(body),
    headers: requestHeaders(spec),
    nameMap,
    signal,
    log: opts.log ?? silentLogger,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    backoffMs: opts.backoffMs ?? DEFAULT_BACKOFF_MS,
  };
  let lastError = 'no endpoint answered';
  for (let index = 0; index < spec.endpoints.length; index++) {
    const result = await tryEndpoint(ctx, index);
    if (result.ok) return result.response;
    lastError = result.error;
  }
  const many = spec.endpoints.length > 1 ? `all ${spec.endpoints.length} endpoints failed; last: ` : '';
  throw new DaemonError('intel_unavailable', `intel: ${many}${lastError}`, true);
}
