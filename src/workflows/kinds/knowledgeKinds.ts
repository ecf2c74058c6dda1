// The knowledge kinds (producers reference §2.4, §2.8): `knowledge.search` and `knowledge.get` call the MCP tool
// that answers the turn's knowledge.search (tools.overrides, else knowledge.server's tool), so a workflow searches
// the same knowledge a turn's auto-context does. Output: the tool's result.
import { callLimitMs, done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';

/** reference §2.13 `limits.step_timeout`: the call's limit when the step sets none. */
const DEFAULT_TIMEOUT_MS = 600_000;

type KnowledgeTool = 'knowledge.search' | 'knowledge.get';

async function callKnowledge(
  ctx: StepContext,
  tool: KnowledgeTool,
  args: Record<string, unknown>,
): Promise<StepResult> {
  const port = ctx.ports.knowledge;
  const call = { timeoutMs: callLimitMs(ctx, DEFAULT_TIMEOUT_MS), signal: ctx.signal };
  const got = port ? await port(tool, args, call) : null;
  if (got === null)
    return failed(`${tool}: no knowledge server answers it (set knowledge.server or tools.overrides.${tool})`);
  if (got.is_error)
    return failed(`${tool}: ${typeof got.result === 'string' ? got.result : JSON.stringify(got.result)}`);
  return done(got.result);
}

function searchArgs(spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const args: Record<string, unknown> = { query: spec['query'] };
  if (spec['top_k'] !== undefined) args['top_k'] = spec['top_k'];
  if (spec['filters'] !== undefined) args['filters'] = spec['filters'];
  return args;
}

function checkSearch(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const topK = fields['top_k'];
  if (topK !== undefined && !(typeof topK === 'string' || (Number.isInteger(topK) && (topK as number) >= 1)))
    problems.push('knowledge.search.top_k must be an integer ≥ 1');
  const filters = fields['filters'];
  if (filters !== undefined && (filters === null || typeof filters !== 'object' || Array.isArray(filters)))
    problems.push('knowledge.search.filters must be a mapping');
  return problems;
}

export const KNOWLEDGE_KINDS: readonly NodeKind[] = [
  {
    name: 'knowledge.search',
    category: 'data',
    implemented: true,
    effect: true,
    doc: "Searches the knowledge a turn's auto-context searches: the MCP tool `tools.overrides.knowledge.search` names, else `knowledge.server`'s `knowledge.search` (or `search`) tool, called with `{query, top_k?, filters?}`. Output: the tool's result (usually `{hits: [{title, uri, snippet, …}]}`). A tool error fails the step `knowledge.search: <text>`; no server ⇒ `knowledge.search: no knowledge server answers it (…)`. The call's limit is the step `timeout` (600 s), within the run's deadline.",
    fields: {
      query: { required: true, doc: 'What to search for (templates).' },
      top_k: { doc: 'Hits asked for (an integer ≥ 1).' },
      filters: { doc: 'A mapping passed to the tool as its `filters`.' },
    },
    check: checkSearch,
    run: (ctx) => callKnowledge(ctx, 'knowledge.search', searchArgs(ctx.spec)),
  },
  {
    name: 'knowledge.get',
    category: 'data',
    implemented: true,
    effect: true,
    doc: "Reads one knowledge document by `id` or `uri` through the MCP tool `tools.overrides.knowledge.get` names, else `knowledge.server`'s `knowledge.get` tool, called with `{id?, uri?}`. Output: the tool's result. A tool error fails the step `knowledge.get: <text>`; no such tool ⇒ `knowledge.get: no knowledge server answers it (…)`.",
    fields: {
      id: { doc: 'The document id (templates).' },
      uri: { doc: 'The document URI (templates).' },
    },
    check: (f) => (f['id'] === undefined && f['uri'] === undefined ? ['knowledge.get needs id or uri'] : []),
    run: (ctx) => {
      const args: Record<string, unknown> = {};
      if (ctx.spec['id'] !== undefined) args['id'] = ctx.spec['id'];
      if (ctx.spec['uri'] !== undefined) args['uri'] = ctx.spec['uri'];
      return callKnowledge(ctx, 'knowledge.get', args);
    },
  },
];
