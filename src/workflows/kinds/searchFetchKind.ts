// `search.fetch` (producers reference §2.4; turn reference §11 `search.fetch {url, max_bytes?}`): one GET of a public
// page, its text cut at `max_bytes`. agentd maps it to a configured search tool; with no search provider here it is
// a plain GET through the `http` step's guard — a host resolving to a private address is always refused.
import { callLimitMs, done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';
import { privateAddressOf } from '../privateAddress.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 1_048_576;

/** Reads at most `max` bytes of the body (the rest is never downloaded). */
async function readCapped(response: Response, max: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  while (reader) {
    const { done: end, value } = await reader.read();
    if (end || value === undefined) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > max) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  return { bytes: Buffer.concat(chunks).subarray(0, max), truncated };
}

async function runFetch(ctx: StepContext): Promise<StepResult> {
  let url: URL;
  try {
    url = new URL(String(ctx.spec['url']));
  } catch {
    return failed(`search.fetch: invalid url "${String(ctx.spec['url'])}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return failed(`search.fetch: unsupported scheme ${url.protocol}`);
  const max = ctx.spec['max_bytes'] ?? DEFAULT_MAX_BYTES;
  if (!Number.isInteger(max) || (max as number) < 1)
    return failed(`search.fetch: max_bytes must be a positive integer (got ${JSON.stringify(max)})`);
  const hit = await privateAddressOf(url, ctx.ports.lookup);
  if (hit !== null) return failed(`search.fetch: ${url.host} resolves to a private address (${hit})`);
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(callLimitMs(ctx, DEFAULT_TIMEOUT_MS))]);
  try {
    const response = await ctx.ports.fetch(url, { method: 'GET', signal, redirect: 'manual' });
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel();
      return failed(`search.fetch: http status ${response.status}`);
    }
    const { bytes, truncated } = await readCapped(response, max as number);
    const content = new TextDecoder().decode(bytes);
    const type = response.headers.get('content-type');
    return done({
      url: url.href,
      status: response.status,
      content_type: type,
      content,
      bytes: bytes.byteLength,
      truncated,
    });
  } catch (err) {
    return failed(`search.fetch: ${signal.aborted ? 'timed out' : ((err as Error).message ?? String(err))}`);
  }
}

export const SEARCH_FETCH_KIND: NodeKind = {
  name: 'search.fetch',
  category: 'data',
  implemented: true,
  effect: true,
  doc: 'GETs `url` (http or https) and keeps its text, at most `max_bytes` (default 1 MiB; the rest is not downloaded). Output `{url, status, content_type, content, bytes, truncated}`; a status outside 200..299 fails `search.fetch: http status <n>` (redirects are not followed). A host that resolves to a loopback, private or link-local address is always refused (there is no `allow_private`; use an `http` step for that). Time limit: `timeout` (30 s), never past the run deadline.',
  fields: {
    url: { required: true, doc: 'The page URL (templates).' },
    max_bytes: { doc: 'Most bytes kept (default 1 048 576).' },
  },
  check: (f) =>
    f['max_bytes'] === undefined ||
    (typeof f['max_bytes'] === 'string' && f['max_bytes'].includes('{{')) ||
    (Number.isInteger(f['max_bytes']) && (f['max_bytes'] as number) >= 1)
      ? []
      : [`search.fetch.max_bytes must be a positive integer (got ${JSON.stringify(f['max_bytes'])})`],
  run: runFetch,
};
