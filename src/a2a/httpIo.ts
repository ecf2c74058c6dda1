// The HTTP edges of the listener: a request body read under a byte limit, JSON answers, and server-sent events.
// Thin shells over node:http; what to answer is decided by the listener.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { restoreIds } from './rpcId.js';

/** The mark of ids kept as sent (rpcId.ts): per process, so no caller can guess it. */
export const ID_MARK = `agentd-exact-id-${randomUUID()}:`;

/** `JSON.stringify(value)` with every marked id written back as the number the caller sent. */
export function stringifyRpc(value: unknown): string {
  return restoreIds(JSON.stringify(value), ID_MARK);
}

export type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'aborted' | 'timeout' };

/**
 * Reads the body as UTF-8, at most `maxBytes`, within `timeoutMs` of the call. A declared Content-Length over the
 * limit is refused before any byte is read; a body that grows past it stops being buffered at once; a body still
 * arriving at the deadline is given up (a slow client must not hold the connection).
 */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ ok: false, reason: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const timer = setTimeout(() => finish({ ok: false, reason: 'timeout' }), timeoutMs);
    timer.unref();
    const finish = (read: BodyRead): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      resolve(read);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        finish({ ok: false, reason: 'too_large' });
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => finish({ ok: false, reason: 'aborted' }));
    req.on('close', () => finish({ ok: false, reason: 'aborted' }));
  });
}

/** Answers with a JSON body. `close` asks the client to drop the connection (a body left unread). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  opts: { close?: boolean; headers?: Record<string, string> } = {},
): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const text = stringifyRpc(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...(opts.close ? { Connection: 'close' } : {}),
    ...opts.headers,
  });
  res.end(text);
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

/** Starts an event stream (status 200) once the first event is known. */
export function startEvents(res: ServerResponse): void {
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
}

/** One event: `data: <json>` and a blank line. */
export function writeEvent(res: ServerResponse, event: unknown): void {
  if (!res.writableEnded) res.write(`data: ${stringifyRpc(event)}\n\n`);
}

/** The `A2A-Version`-style single header value (the first, when repeated). */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
