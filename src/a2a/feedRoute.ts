// `GET /feed` (issue 18 item 1): the client feed as server-sent events. Each event's `id:` is its durable seq, so
// `?since=SEQ` or `Last-Event-ID` resumes with no gap and no duplicate, across daemon restarts; a cursor that fell
// out of retention gets `event: reload` first. Only what the caller may see is sent (feedPolicy.canSee).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FeedEvent } from '../domain/feed.js';
import type { Principal } from './backend.js';
import type { FeedHub } from './feedHub.js';
import { canSee, planResume, readCursor } from './feedPolicy.js';
import { headerOf, sendJson } from './httpIo.js';

const PAGE = 256;
/** A comment line this often keeps proxies and idle timers from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/** Streams the feed to `viewer` until `signal` aborts (the caller left or the listener closes). */
export async function serveFeed(
  req: IncomingMessage,
  res: ServerResponse,
  viewer: Principal,
  hub: FeedHub,
  signal: AbortSignal,
): Promise<void> {
  const live: FeedEvent[] = [];
  let wake: (() => void) | null = null;
  // Subscribed before the first read: an event stored meanwhile is in `live` and skipped by its seq if replayed.
  const off = hub.subscribe((events) => {
    live.push(...events);
    wake?.();
  });
  const onAbort = (): void => wake?.();
  signal.addEventListener('abort', onAbort);
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  try {
    const bounds = await hub.bounds();
    const url = new URL(req.url ?? '/', 'http://feed');
    const cursor = readCursor(url.searchParams.get('since'), headerOf(req, 'last-event-id'), bounds.newest);
    if (cursor !== null && typeof cursor === 'object') return sendJson(res, 400, { error: cursor.refused });
    const plan = planResume(cursor, bounds);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ ...bounds, from: plan.from })}\n\n`);
    if (plan.reload) res.write(`event: reload\ndata: ${JSON.stringify({ ...bounds, from: plan.from })}\n\n`);
    let last = plan.from;
    for (;;) {
      const page = await hub.read(last, PAGE);
      last = send(res, viewer, page, last);
      if (page.length < PAGE || signal.aborted) break;
    }
    while (!signal.aborted) {
      const batch = live.splice(0).filter((e) => e.seq > last);
      if (batch.length > 0) {
        last = send(res, viewer, batch, last);
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
  } finally {
    off();
    clearInterval(keepalive);
    signal.removeEventListener('abort', onAbort);
    if (!res.writableEnded) res.end();
  }
}

/**
 * Writes the events `viewer` may see; returns the new cursor. A run of events it may not see still moves its
 * `Last-Event-ID` (an `id:` line alone updates it and dispatches nothing), so a resume does not rescan them.
 */
function send(res: ServerResponse, viewer: Principal, events: readonly FeedEvent[], last: number): number {
  let cursor = last;
  let hidden = false;
  for (const e of events) {
    cursor = e.seq;
    if (!canSee(viewer, e)) {
      hidden = true;
      continue;
    }
    hidden = false;
    const data = { seq: e.seq, ts: e.ts, kind: e.kind, data: e.data };
    res.write(`id: ${e.seq}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  if (hidden) res.write(`id: ${cursor}\n\n`);
  return cursor;
}
