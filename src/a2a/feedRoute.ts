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
/**
 * Live events held for a client that does not read (its socket is full): past this many bytes it is sent a reload
 * hint and dropped, so a stalled client never grows the daemon's memory without bound. It resumes from its cursor.
 */
export const FEED_BEHIND_BYTES = 4 * 1024 * 1024;
/** How long a dropped client's last bytes may take before its socket is destroyed. */
const DROP_GRACE_MS = 5_000;

/** How a stream ended: the caller left (or the listener closed), or it fell too far behind and was dropped. */
export type FeedEnd = 'ended' | 'behind';

/** Streams the feed to `viewer` until `signal` aborts (the caller left or the listener closes). */
export async function serveFeed(
  req: IncomingMessage,
  res: ServerResponse,
  viewer: Principal,
  hub: FeedHub,
  signal: AbortSignal,
): Promise<FeedEnd> {
  const live: FeedEvent[] = [];
  let held = 0;
  let wake: (() => void) | null = null;
  let overflow: () => void = () => {};
  // Resolves once the events held for this client pass the bound: a wait for its socket to drain ends there.
  const behind = new Promise<void>((resolve) => {
    overflow = resolve;
  });
  // Subscribed before the first read: an event stored meanwhile is in `live` and skipped by its seq if replayed.
  const off = hub.subscribe((events) => {
    live.push(...events);
    for (const e of events) held += JSON.stringify(e.data).length;
    if (held > FEED_BEHIND_BYTES) overflow();
    wake?.();
  });
  const onAbort = (): void => wake?.();
  signal.addEventListener('abort', onAbort);
  // A keepalive only while the socket drains: a stalled client gets nothing more queued.
  const keepalive = setInterval(() => res.writableNeedDrain || res.write(': keepalive\n\n'), KEEPALIVE_MS);
  try {
    const bounds = await hub.bounds();
    const url = new URL(req.url ?? '/', 'http://feed');
    const cursor = readCursor(url.searchParams.get('since'), headerOf(req, 'last-event-id'), bounds.newest);
    if (cursor !== null && typeof cursor === 'object') {
      sendJson(res, 400, { error: cursor.refused });
      return 'ended';
    }
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
      await Promise.race([drained(res, signal), behind]);
      if (page.length < PAGE || signal.aborted || held > FEED_BEHIND_BYTES) break;
    }
    while (!signal.aborted) {
      if (held > FEED_BEHIND_BYTES) return dropBehind(res, last);
      const batch = live.splice(0).filter((e) => e.seq > last);
      held = 0;
      if (batch.length > 0) {
        last = send(res, viewer, batch, last);
        await Promise.race([drained(res, signal), behind]);
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
    return 'ended';
  } finally {
    off();
    clearInterval(keepalive);
    signal.removeEventListener('abort', onAbort);
    if (!res.writableEnded) res.end();
  }
}

/** Resolves once the socket took what was written (`drain`), or the stream is over; at once when nothing waits. */
function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (!res.writableNeedDrain || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Ends a stream that fell behind with a reload hint (its cursor still resumes); destroyed if it never drains. */
function dropBehind(res: ServerResponse, last: number): FeedEnd {
  res.end(`event: reload\ndata: ${JSON.stringify({ reason: 'behind', from: last })}\n\n`);
  setTimeout(() => res.destroy(), DROP_GRACE_MS).unref();
  return 'behind';
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
