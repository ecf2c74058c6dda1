// `search.query` (producers reference §2.4; turn reference §11 `search.query {query, kind?: web|docs|code, limit?,
// freshness?}`; in a step the tool's `kind` is `search_kind`, as `kind` names the node kind): asks the configured search provider (`search.provider`, a SearXNG-compatible JSON API) and keeps
// its first `limit` results, normalised. The provider URL is the operator's (not the step's), so the private-address
// guard of `http` does not apply; its key is sent as a bearer token and never reaches the run.
import { callLimitMs, done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;
/** SearXNG categories each `kind` asks. */
const CATEGORIES: Readonly<Record<string, string>> = { web: 'general', docs: 'it', code: 'repos' };
const FRESHNESS = ['day', 'week', 'month', 'year'] as const;

/** One hit as the step outputs it. */
interface Hit {
  title: string;
  url: string;
  snippet: string;
  engine: string | null;
  published: string | null;
}

function checkSearch(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const { search_kind: kind, limit, freshness } = fields;
  if (kind !== undefined && !(typeof kind === 'string' && kind in CATEGORIES) && !String(kind).includes('{{'))
    problems.push(`search.query.search_kind must be web, docs or code (got ${JSON.stringify(kind)})`);
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= MAX_LIMIT))
    if (!String(limit).includes('{{'))
      problems.push(`search.query.limit must be an integer in 1..${MAX_LIMIT} (got ${JSON.stringify(limit)})`);
  if (freshness !== undefined && !FRESHNESS.includes(freshness as never) && !String(freshness).includes('{{'))
    problems.push(`search.query.freshness must be one of ${FRESHNESS.join(', ')} (got ${JSON.stringify(freshness)})`);
  return problems;
}

/** The provider's request for the rendered step, or the problem with a rendered field. */
function requestUrl(base: string, spec: Readonly<Record<string, unknown>>): URL | string {
  const query = spec['query'];
  if (typeof query !== 'string' || query.trim() === '') return 'query must be a non-empty string';
  const problems = checkSearch(spec);
  if (problems.length > 0) return problems[0]?.replace(/^search\.query\./, '') ?? '';
  const url = new URL(base);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  url.searchParams.set('categories', CATEGORIES[String(spec['search_kind'] ?? 'web')] ?? 'general');
  if (typeof spec['freshness'] === 'string') url.searchParams.set('time_range', spec['freshness']);
  return url;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** SearXNG's `results` (each `{url, title, content, engine, publishedDate}`), the first `limit` with a URL. */
function hitsOf(body: unknown, limit: number): Hit[] | null {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return null;
  return results
    .filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object' && typeof r.url === 'string')
    .slice(0, limit)
    .map((r) => ({
      title: text(r['title']),
      url: text(r['url']),
      snippet: text(r['content']),
      engine: typeof r['engine'] === 'string' ? r['engine'] : null,
      published: typeof r['publishedDate'] === 'string' ? r['publishedDate'] : null,
    }));
}

async function runSearch(ctx: StepContext): Promise<StepResult> {
  const provider = ctx.ports.searchProvider?.() ?? null;
  if (provider === null) return failed('search.query: no search provider (search.provider.url is not set)');
  const url = requestUrl(provider.url, ctx.spec);
  if (typeof url === 'string') return failed(`search.query: ${url}`);
  const limit = typeof ctx.spec['limit'] === 'number' ? ctx.spec['limit'] : DEFAULT_LIMIT;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(callLimitMs(ctx, DEFAULT_TIMEOUT_MS))]);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (provider.key !== null) headers['authorization'] = `Bearer ${provider.key}`;
  try {
    const response = await ctx.ports.fetch(url, { method: 'GET', headers, signal, redirect: 'manual' });
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel();
      return failed(`search.query: provider http status ${response.status}`);
    }
    const hits = hitsOf(await response.json().catch(() => null), limit);
    if (hits === null) return failed('search.query: the provider did not answer a JSON object with results');
    return done({ query: ctx.spec['query'], results: hits });
  } catch (err) {
    return failed(`search.query: ${signal.aborted ? 'timed out' : ((err as Error).message ?? String(err))}`);
  }
}

export const SEARCH_QUERY_KIND: NodeKind = {
  name: 'search.query',
  category: 'data',
  implemented: true,
  effect: true,
  doc: 'Asks the configured search provider (`search.provider.url`, a SearXNG-compatible JSON API: `GET <url>?q=<query>&format=json&categories=…[&time_range=…]`, `search.provider.key` sent as a bearer token) and outputs `{query, results: [{title, url, snippet, engine, published}]}`, the first `limit` results. A configured workflow with a `search.query` step and no provider is refused at load (`search.query needs a search provider (search.provider.url is not set)`); so is one `workflow.create` / `workflow.update` is given; a stored one whose provider was removed since fails the step with `search.query: no search provider …`. A status outside 200..299 fails `search.query: provider http status <n>`. Time limit: `timeout` (30 s), never past the run deadline.',
  fields: {
    query: { required: true, doc: 'What to search for (templates).' },
    search_kind: {
      doc: "web (default) | docs | code: the SearXNG categories general | it | repos (the tool's `kind`; `kind` names the node kind).",
    },
    limit: { doc: `Results kept, 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` },
    freshness: { doc: 'day | week | month | year: only results this recent (SearXNG `time_range`).' },
  },
  check: checkSearch,
  run: runSearch,
};
