// One JSON POST over node:http/https (never fetch: its wasm parser costs ~100 ms per worker process).
// Owns abort and timeout of a single request; it does not retry and does not interpret the status.
import http from 'node:http';

export interface HttpResponse {
  status: number;
  body: string;
}

export interface HttpPostOptions {
  signal: AbortSignal;
  /** Whole-request ceiling (connect + response); a timeout is an ordinary, retryable error. */
  timeoutMs: number;
  /** Larger responses are cut off with an error. Default 32 MiB. */
  maxBytes?: number;
}

/** Thrown when the caller's signal aborts the request (deadline or cancel); the round loop tells it apart. */
export class AbortError extends Error {
  override name = 'AbortError';
  constructor(message = 'the request was aborted') {
    super(message);
  }
}

/** True for the abort raised by `httpPost` (or any error named AbortError). */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** Transport-level failure (refused, reset, timeout, oversized body): the failover class. */
export class TransportError extends Error {
  override name = 'TransportError';
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

/** Collects a response body up to `maxBytes`; calls `done` once. */
function readBody(res: http.IncomingMessage, maxBytes: number, done: (err: Error | null, text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (over) return;
    if (size > maxBytes) {
      over = true;
      done(new TransportError(`response larger than ${maxBytes} bytes`), '');
      return;
    }
    chunks.push(chunk);
  });
  res.on('error', (err) => done(new TransportError(err.message), ''));
  res.on('end', () => {
    if (!over) done(null, Buffer.concat(chunks).toString('utf8'));
  });
}

/** node:https (and TLS with it) loads at the first https request: a spare worker waits for its turn without it. */
let tls: Promise<typeof import('node:https')> | null = null;

/** POSTs `body` to `url`; resolves with the status and body text for any HTTP status. */
export function httpPost(
  url: URL,
  body: string,
  headers: Record<string, string>,
  opts: HttpPostOptions,
): Promise<HttpResponse> {
  if (url.protocol !== 'https:') return post(http.request, url, body, headers, opts);
  tls ??= import('node:https');
  return tls.then((https) => post(https.request, url, body, headers, opts));
}

function post(
  request: typeof http.request,
  url: URL,
  body: string,
  headers: Record<string, string>,
  opts: HttpPostOptions,
): Promise<HttpResponse> {
  if (opts.signal.aborted) return Promise.reject(new AbortError());
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const payload = Buffer.from(body, 'utf8');
  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, res?: HttpResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(res as HttpResponse);
    };
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(payload.length),
        connection: 'close',
      },
    });
    const onAbort = (): void => {
      finish(new AbortError());
      req.destroy();
    };
    const timer = setTimeout(() => {
      finish(new TransportError(`no response within ${opts.timeoutMs} ms`));
      req.destroy();
    }, opts.timeoutMs);
    opts.signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => finish(new TransportError(err.message)));
    req.on('response', (res) => {
      readBody(res, maxBytes, (err, text) => {
        if (err) {
          finish(err);
          req.destroy();
        } else finish(null, { status: res.statusCode ?? 0, body: text });
      });
    });
    req.end(payload);
  });
}
