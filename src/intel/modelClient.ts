// One logical model call (reference §5.1): request rules, dialect, same-endpoint retries, the per-endpoint
// breaker, failover, then the model's fallback. Errors are `intel: …` and never carry a token or credential URL.
import { DaemonError, describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { silentLogger } from '../obs/log.js';
import { redact, redactWith } from '../obs/redactor.js';
import type { IntelligenceSpec } from '../protocol/frames.js';
import type { Breaker, BreakerStep } from './breaker.js';
import { mayRetry, newBreaker, nextEndpoint, recordFailure, recordSuccess, releaseProbe } from './breaker.js';
import type { DialectWire } from './dialects.js';
import { DIALECTS } from './dialects.js';
import type { HttpResponse } from './httpPost.js';
import { AbortError, httpPost, isAbortError, TransportError } from './httpPost.js';
import type { ModelRequest, ModelResponse, ToolNameMap } from './modelRequest.js';
import { planWireRequest } from './requestRules.js';

export interface CallModelOptions {
  log?: Logger;
  /** Per-request ceiling; the caller's signal (turn deadline) still bounds it. Default: the spec's timeout_ms. */
  timeoutMs?: number;
  /** Waits before the 2nd and 3rd attempt on one endpoint. Default [250, 500]. */
  backoffMs?: readonly number[];
  /** The breaker's clock. Default Date.now. */
  now?: () => number;
  /** Where the breaker state lives. Default: one per spec object (in the worker: for its one turn). */
  health?: EndpointHealthBox;
}

/** Mutable holder of one spec's breaker state and each endpoint's last (already scrubbed) failure. */
export interface EndpointHealthBox {
  breaker: Breaker;
  lastError: Map<number, string>;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_BACKOFF_MS = [250, 500] as const;
const SHORT_BODY_CHARS = 200;
/** A fallback's own fallback is followed, this many hops at most (a cycle in config cannot loop). */
const MAX_FALLBACK_HOPS = 3;

const healthBySpec = new WeakMap<IntelligenceSpec, EndpointHealthBox>();

/** The request URL for an endpoint of `dialect` (OpenAI …/chat/completions, Anthropic …/v1/messages). */
export function endpointUrl(endpoint: string, dialect: IntelligenceSpec['dialect'] = 'openai', model = ''): URL {
  return DIALECTS[dialect].url(endpoint, model);
}

/** A fresh breaker box (tests and embedders that want to share or inspect breaker state). */
function newHealthBox(endpoints: number): EndpointHealthBox {
  return { breaker: newBreaker(endpoints), lastError: new Map() };
}

function healthFor(spec: IntelligenceSpec, given: EndpointHealthBox | undefined): EndpointHealthBox {
  const box = given ?? healthBySpec.get(spec) ?? newHealthBox(spec.endpoints.length);
  if (box.breaker.length !== spec.endpoints.length) box.breaker = newBreaker(spec.endpoints.length);
  if (given === undefined) healthBySpec.set(spec, box);
  return box;
}

type Attempt = { ok: true; response: ModelResponse } | { ok: false; error: string };

interface CallContext {
  spec: IntelligenceSpec;
  wire: DialectWire;
  model: string;
  body: string;
  headers: Record<string, string>;
  nameMap: ToolNameMap;
  signal: AbortSignal;
  log: Logger;
  timeoutMs: number;
  backoffMs: readonly number[];
  now: () => number;
  health: EndpointHealthBox;
}

/** Error text without the token, configured header values or registered secrets; single line, bounded. */
function scrub(text: string, spec: IntelligenceSpec): string {
  let out = text.replace(/\s+/g, ' ').trim();
  const aws = spec.aws ? [spec.aws.access_key_id, spec.aws.secret_access_key, spec.aws.session_token ?? ''] : [];
  out = redact(redactWith(out, [spec.token ?? '', ...spec.headers.map(([, v]) => v), ...aws]));
  return out.length > SHORT_BODY_CHARS ? `${out.slice(0, SHORT_BODY_CHARS)}…` : out;
}

function classifyResponse(ctx: CallContext, res: HttpResponse, host: string): Attempt {
  if (res.status === 429 || res.status >= 500) {
    return { ok: false, error: `HTTP ${res.status} from ${host}: ${scrub(res.body, ctx.spec)}` };
  }
  if (res.status < 200 || res.status >= 300) {
    throw new DaemonError('intel_fatal', `intel: HTTP ${res.status} from ${host}: ${scrub(res.body, ctx.spec)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    throw new DaemonError('intel_fatal', `intel: malformed response from ${host}: the body is not JSON`);
  }
  return { ok: true, response: ctx.wire.parse(json, ctx.nameMap, ctx.model) };
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

/** Stores a breaker step and logs its transitions: endpoint index and host only, never the URL. */
function applyStep(ctx: CallContext, step: BreakerStep): void {
  ctx.health.breaker = step.breaker;
  for (const t of step.transitions) {
    const host = hostOf(ctx.spec.endpoints[t.endpoint] ?? '', ctx.wire);
    ctx.log.event(t.state === 'open' ? 'warn' : 'info', 'intel.health', { endpoint: t.endpoint, host, state: t.state });
  }
}

function hostOf(endpoint: string, wire: DialectWire): string {
  try {
    return wire.url(endpoint, 'm').host;
  } catch {
    return 'invalid-url';
  }
}

async function attemptOnce(ctx: CallContext, url: URL): Promise<Attempt> {
  try {
    const headers = ctx.wire.sign
      ? await ctx.wire.sign(ctx.spec, url, ctx.body, ctx.headers, new Date(ctx.now()))
      : ctx.headers;
    const res = await httpPost(url, ctx.body, headers, { signal: ctx.signal, timeoutMs: ctx.timeoutMs });
    return classifyResponse(ctx, res, url.host);
  } catch (err) {
    if (isAbortError(err) || !(err instanceof TransportError)) throw err;
    return { ok: false, error: `cannot reach ${url.host}: ${scrub(describeError(err), ctx.spec)}` };
  }
}

function nextMove(ctx: CallContext, index: number, delay: number | undefined): 'same' | 'next' | 'fallback' | 'none' {
  if (delay !== undefined && mayRetry(ctx.health.breaker, index)) return 'same';
  if (index + 1 < ctx.spec.endpoints.length) return 'next';
  return ctx.spec.fallback ? 'fallback' : 'none';
}

/** Tries one endpoint: retries in place while its breaker stays closed and backoff steps remain. */
async function tryEndpoint(ctx: CallContext, index: number): Promise<Attempt> {
  let url: URL;
  try {
    url = ctx.wire.url(ctx.spec.endpoints[index] as string, ctx.model);
  } catch {
    ctx.health.breaker = releaseProbe(ctx.health.breaker, index);
    // The URL text may hold credentials: name the endpoint by its index only.
    throw new DaemonError('intel_fatal', `intel: endpoint ${index} is not a valid URL`);
  }
  for (let attempt = 0; ; attempt++) {
    let last: Attempt;
    try {
      last = await attemptOnce(ctx, url);
    } catch (err) {
      ctx.health.breaker = releaseProbe(ctx.health.breaker, index);
      throw err;
    }
    if (last.ok) {
      applyStep(ctx, recordSuccess(ctx.health.breaker, index));
      return last;
    }
    ctx.health.lastError.set(index, last.error);
    applyStep(ctx, recordFailure(ctx.health.breaker, index, ctx.now()));
    const delay = ctx.backoffMs[attempt];
    const next = nextMove(ctx, index, delay);
    if (next !== 'none') {
      const fields = { endpoint: index, host: url.host, attempt: attempt + 1, err: last.error, next };
      ctx.log.warn('intel.retry', { ...fields, delay_ms: next === 'same' ? delay : 0 });
    }
    if (next !== 'same') return last;
    await sleep(delay as number, ctx.signal);
  }
}

function callContext(spec: IntelligenceSpec, request: ModelRequest, signal: AbortSignal, opts: CallModelOptions) {
  const wire = DIALECTS[spec.dialect];
  const { body, nameMap } = wire.build(planWireRequest(spec, request));
  const ctx: CallContext = {
    spec,
    wire,
    model: request.model,
    body: JSON.stringify(body),
    headers: wire.headers(spec),
    nameMap,
    signal,
    log: opts.log ?? silentLogger,
    timeoutMs: opts.timeoutMs ?? (spec.timeout_ms > 0 ? spec.timeout_ms : DEFAULT_TIMEOUT_MS),
    backoffMs: opts.backoffMs ?? DEFAULT_BACKOFF_MS,
    now: opts.now ?? Date.now,
    health: healthFor(spec, opts.health),
  };
  return ctx;
}

/** Sweeps the endpoints from the lowest-index healthy one; throws `intel_unavailable` when none answers. */
async function callEndpoints(ctx: CallContext): Promise<ModelResponse> {
  const tried = new Set<number>();
  let lastError: string | undefined;
  for (;;) {
    const pick = nextEndpoint(ctx.health.breaker, ctx.now(), tried);
    applyStep(ctx, pick);
    if (pick.index === null) break;
    tried.add(pick.index);
    const result = await tryEndpoint(ctx, pick.index);
    if (result.ok) return { ...result.response, model: ctx.model };
    lastError = result.error;
  }
  if (lastError === undefined) {
    // Every breaker was open before this call: report what each endpoint last failed with.
    const known = [...ctx.health.lastError.values()].at(-1);
    lastError = `every endpoint is cooling down after repeated failures${known ? `; last: ${known}` : ''}`;
  }
  const n = ctx.spec.endpoints.length;
  const many = n > 1 ? `all ${n} endpoints failed; last: ` : '';
  throw new DaemonError('intel_unavailable', `intel: ${many}${lastError}`, true);
}

async function callSpec(
  spec: IntelligenceSpec,
  request: ModelRequest,
  signal: AbortSignal,
  opts: CallModelOptions,
): Promise<ModelResponse> {
  if (!Object.hasOwn(DIALECTS, spec.dialect)) {
    throw new DaemonError('intel_fatal', `intel: dialect '${spec.dialect}' is not supported in this build`);
  }
  if (spec.endpoints.length === 0) throw new DaemonError('intel_fatal', 'intel: no model endpoint is configured');
  return callEndpoints(callContext(spec, request, signal, opts));
}

/**
 * Calls the model once, logically: 429/5xx/transport errors retry the same endpoint (250 then 500 ms) while its
 * breaker is closed, then fail over to the next endpoint; 401/403, other 4xx and malformed bodies fail at once.
 * When every endpoint is down and the spec has a `fallback`, the same call runs on it — without reasoning parts.
 * An abort of `signal` rejects promptly with an AbortError (see `isAbortError`).
 */
export async function callModel(
  spec: IntelligenceSpec,
  request: ModelRequest,
  signal: AbortSignal,
  opts: CallModelOptions = {},
): Promise<ModelResponse> {
  let current = spec;
  let req = request;
  let options = opts;
  for (let hop = 0; ; hop++) {
    try {
      return await callSpec(current, req, signal, options);
    } catch (err) {
      const fallback = current.fallback;
      const down = err instanceof DaemonError && err.code === 'intel_unavailable';
      if (!down || !fallback || hop >= MAX_FALLBACK_HOPS || signal.aborted) throw err;
      (opts.log ?? silentLogger).warn('intel.fallback', { from: req.model, to: fallback.model });
      // Reasoning parts belong to the model that produced them: never sent to another one.
      const { reasoning: _dropped, ...rest } = req;
      req = { ...rest, model: fallback.model };
      // The fallback keeps its own breaker and its own per-request timeout.
      const { health: _own, timeoutMs: _primary, ...shared } = options;
      options = shared;
      current = fallback;
    }
  }
}
