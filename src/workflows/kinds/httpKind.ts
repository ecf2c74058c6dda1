// The `http` step (producers reference §2.8): one request, refused towards private addresses unless the step sets
// `allow_private`, bounded by its timeout and the run's deadline, with the step's idempotency key in a header.

import { callLimitMs, done, failed, type NodeKind, pinnedKey, type StepContext, type StepResult } from '../nodeKind.js';
import { privateAddressOf } from '../privateAddress.js';
import { signatureHeader, signProblems } from './httpSign.js';

const DEFAULT_TIMEOUT_MS = 30_000;

type KeyPlace = { header: string } | { query: string };

function keyPlace(spec: Readonly<Record<string, unknown>>): KeyPlace {
  const idem = spec['idempotency'];
  if (idem !== null && typeof idem === 'object') {
    const o = idem as Record<string, unknown>;
    if (typeof o['query'] === 'string') return { query: o['query'] };
    if (typeof o['header'] === 'string') return { header: o['header'] };
  }
  return { header: 'Idempotency-Key' };
}

function buildUrl(ctx: StepContext, place: KeyPlace, key: string): URL {
  const url = new URL(String(ctx.spec['url']));
  const query = ctx.spec['query'];
  if (query !== null && typeof query === 'object')
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  if ('query' in place) url.searchParams.set(place.query, key);
  return url;
}

function buildInit(ctx: StepContext, place: KeyPlace, key: string, signal: AbortSignal): RequestInit | string {
  const headers: Record<string, string> = {};
  const given = ctx.spec['headers'];
  if (given !== null && typeof given === 'object') for (const [k, v] of Object.entries(given)) headers[k] = String(v);
  if ('header' in place) headers[place.header] = key;
  let body: string | undefined;
  if (ctx.spec['json'] !== undefined) {
    body = JSON.stringify(ctx.spec['json']);
    headers['content-type'] ??= 'application/json';
  } else if (ctx.spec['body'] !== undefined) {
    body = typeof ctx.spec['body'] === 'string' ? ctx.spec['body'] : JSON.stringify(ctx.spec['body']);
  }
  const sign = ctx.spec['sign'];
  if (sign !== null && typeof sign === 'object') {
    const signed = signatureHeader(sign as Record<string, unknown>, body ?? '', ctx.ports.secret);
    if (!signed.ok) return signed.error;
    headers[signed.name] = signed.value;
  }
  const method = typeof ctx.spec['method'] === 'string' ? ctx.spec['method'].toUpperCase() : 'GET';
  return { method, headers, body, signal, redirect: 'manual' };
}

/** The refusal text when `url`'s host resolves to a private address and the step did not allow it. */
async function privateRefusal(ctx: StepContext, url: URL): Promise<string | null> {
  if (ctx.spec['allow_private'] === true) return null;
  const hit = await privateAddressOf(url, ctx.ports.lookup);
  return hit === null ? null : `http: ${url.host} resolves to a private address (${hit}); set allow_private`;
}

function succeeded(status: number, expect: unknown): boolean {
  if (Array.isArray(expect)) return expect.map(Number).includes(status);
  return status >= 200 && status <= 399;
}

async function runHttp(ctx: StepContext): Promise<StepResult> {
  let url: URL;
  const place = keyPlace(ctx.spec);
  const key = pinnedKey(ctx);
  try {
    url = buildUrl(ctx, place, key);
  } catch {
    return failed(`http: invalid url "${String(ctx.spec['url'])}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return failed(`http: unsupported scheme ${url.protocol}`);
  const refusal = await privateRefusal(ctx, url);
  if (refusal !== null) return failed(refusal);
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(callLimitMs(ctx, DEFAULT_TIMEOUT_MS))]);
  const init = buildInit(ctx, place, key, signal);
  if (typeof init === 'string') return failed(init);
  let response: Response;
  let body: string;
  try {
    response = await ctx.ports.fetch(url, init);
    body = await response.text();
  } catch (err) {
    return failed(`http: ${signal.aborted ? 'timed out' : ((err as Error).message ?? String(err))}`);
  }
  let json: unknown = null;
  try {
    json = body === '' ? null : JSON.parse(body);
  } catch {
    json = null;
  }
  const headers = Object.fromEntries(response.headers.entries());
  const output = { status: response.status, ok: response.ok, headers, body, json };
  return succeeded(response.status, ctx.spec['expect']) ? done(output) : failed(`http status ${response.status}`);
}

function checkHttp(fields: Readonly<Record<string, unknown>>): string[] {
  const problems = signProblems(fields['sign']);
  const idem = fields['idempotency'];
  if (idem !== undefined) {
    const o = idem !== null && typeof idem === 'object' ? (idem as Record<string, unknown>) : {};
    if (('header' in o ? 1 : 0) + ('query' in o ? 1 : 0) !== 1)
      problems.push('http.idempotency must have exactly one of header or query (and an optional value)');
  }
  return problems;
}

export const HTTP_KIND: NodeKind = {
  name: 'http',
  category: 'integration',
  implemented: true,
  effect: true,
  doc: 'One HTTP request (GET by default). Output `{status, ok, headers, body, json}`; success is 200..399 unless `expect` lists codes, else `http status <n>`. A host that resolves to a loopback/private/link-local address is refused unless `allow_private: true`. Time limit: `timeout` (30 s by default), never past the run deadline. The step key goes in `Idempotency-Key` (or `idempotency.header` / `idempotency.query`). `sign: {key: "{{secret:NAME}}", header?, algorithm?}` adds `<header>: <algorithm>=<hex HMAC of the exact body sent>` (header `X-Signature-256`, algorithm `sha256`; `sha512`, `sha1` too; an empty body signs the empty string); the key is resolved from the environment when the request is sent and is never stored, logged or put in an error (a literal key is refused at load).',
  fields: {
    url: { required: true, doc: 'The URL (http or https).' },
    method: { doc: 'GET (default), POST, PUT, PATCH, DELETE, …' },
    headers: { doc: 'Mapping of header → value (templates).' },
    query: { doc: 'Mapping of query parameter → value.' },
    body: { doc: 'A raw body (a non-string is sent as JSON text).' },
    json: { doc: 'A JSON body (sets content-type).' },
    timeout: { doc: 'Seconds or a duration (default 30 s).' },
    expect: { doc: 'Status codes counted as success (default 200..399).' },
    allow_private: { doc: 'true: private, loopback and link-local addresses may be reached.' },
    sign: { doc: '`{key: "{{secret:NAME}}", header?, algorithm?}`: HMAC of the body in a header.' },
    idempotency: { doc: '`{header}` or `{query}` naming where the key goes, and an optional pinned `value`.' },
  },
  check: checkHttp,
  run: runHttp,
};
