// Reads the daemon's client feed (`GET /feed`, issue 18 item 1) as a client: parses server-sent events, and on a
// dropped connection (a daemon restart) reconnects with `Last-Event-ID` so that every event arrives once, in
// order. Used by the CLI's `log`, the TUI and the web UI's tests. No daemon code is imported.

/** One feed event as the daemon sends it. */
export interface FeedMessage {
  seq: number;
  ts: number;
  kind: string;
  data: Record<string, unknown>;
}

export interface FeedHandlers {
  onEvent(event: FeedMessage): void;
  /** The cursor fell out of retention (or the store was replaced): rebuild state from reads, then keep going. */
  onReload?(): void;
  /** Connected (true) or lost (false, with why); called on each change. */
  onConnection?(up: boolean, why?: string): void;
}

export interface FeedOptions {
  /** Resume after this seq; `latest` = only new events; absent = everything retained. */
  since?: number | 'latest';
  signal: AbortSignal;
  /** Reconnect after a drop (default true); false ends at the first drop. */
  reconnect?: boolean;
}

const BACKOFF_START_MS = 250;
const BACKOFF_MAX_MS = 5_000;

/** Splits an SSE byte stream into events (`id`, `event`, `data` fields; comments dropped). */
export class SseParser {
  private buffer = '';
  private fields: { id?: string; event?: string; data: string[] } = { data: [] };

  /** Feeds text; returns the events it completed. An `id:` line alone is returned too (it moves the cursor). */
  push(text: string): Array<{ id?: string; event?: string; data?: string }> {
    this.buffer += text;
    const out: Array<{ id?: string; event?: string; data?: string }> = [];
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl < 0) break;
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (line === '') {
        const { id, event, data } = this.fields;
        if (id !== undefined || data.length > 0) {
          out.push({
            ...(id !== undefined ? { id } : {}),
            ...(event ? { event } : {}),
            ...(data.length ? { data: data.join('\n') } : {}),
          });
        }
        this.fields = { data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'id') this.fields.id = value;
      else if (name === 'event') this.fields.event = value;
      else if (name === 'data') this.fields.data.push(value);
    }
    return out;
  }
}

/**
 * Follows the feed until `signal` aborts (resolves) or, without reconnect, the first drop (rejects). `headers` is
 * called per connection (a token may change). Resolves with the last seq seen.
 */
export async function followFeed(
  url: string,
  headers: () => Record<string, string>,
  handlers: FeedHandlers,
  opts: FeedOptions,
): Promise<number> {
  let cursor: number | 'latest' | undefined = opts.since;
  let backoff = BACKOFF_START_MS;
  let up = false;
  const setUp = (next: boolean, why?: string): void => {
    if (next !== up) handlers.onConnection?.(next, why);
    up = next;
  };
  while (!opts.signal.aborted) {
    try {
      await readOnce(
        url,
        headers(),
        cursor,
        handlers,
        opts.signal,
        (seq) => {
          cursor = seq;
          backoff = BACKOFF_START_MS;
        },
        () => setUp(true),
      );
      if (opts.signal.aborted) break;
      throw new Error('the daemon ended the feed');
    } catch (err) {
      if (opts.signal.aborted) break;
      const why = err instanceof Error ? err.message : String(err);
      setUp(false, why);
      if (opts.reconnect === false || err instanceof FeedRefused) throw err;
      await sleep(backoff, opts.signal);
      backoff = Math.min(BACKOFF_MAX_MS, backoff * 2);
    }
  }
  return typeof cursor === 'number' ? cursor : 0;
}

/** The daemon refused the feed (401, 403, 400): retrying the same request cannot help. */
export class FeedRefused extends Error {
  override name = 'FeedRefused';
}

async function readOnce(
  url: string,
  headers: Record<string, string>,
  cursor: number | 'latest' | undefined,
  handlers: FeedHandlers,
  signal: AbortSignal,
  moved: (seq: number) => void,
  connected: () => void,
): Promise<void> {
  const target = new URL('/feed', url);
  if (cursor === 'latest') target.searchParams.set('since', 'latest');
  const h: Record<string, string> = { accept: 'text/event-stream', ...headers };
  if (typeof cursor === 'number') h['last-event-id'] = String(cursor);
  const res = await fetch(target, { headers: h, signal }).catch((err: Error & { cause?: { code?: string } }) => {
    throw new Error(`cannot reach ${target.origin}: ${err.cause?.code ?? err.message}`);
  });
  if (res.status === 401 || res.status === 403 || res.status === 400) {
    const body = await res.text().catch(() => '');
    throw new FeedRefused(`${target.origin} refused the feed: HTTP ${res.status} ${errorText(body)}`.trim());
  }
  if (res.status !== 200 || !res.body) throw new Error(`${target.origin} answered the feed with HTTP ${res.status}`);
  connected();
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    for (const ev of parser.push(decoder.decode(chunk, { stream: true }))) {
      if (ev.event === 'reload') handlers.onReload?.();
      if (ev.event === 'hello' && cursor === 'latest' && ev.data) {
        const from = (JSON.parse(ev.data) as { from?: number }).from;
        if (typeof from === 'number') moved(from);
      }
      if (ev.event !== undefined) continue;
      if (ev.id !== undefined && /^\d+$/.test(ev.id)) moved(Number(ev.id));
      if (ev.data !== undefined) handlers.onEvent(JSON.parse(ev.data) as FeedMessage);
    }
  }
}

function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string };
    return typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? '');
  } catch {
    return body.slice(0, 200);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
