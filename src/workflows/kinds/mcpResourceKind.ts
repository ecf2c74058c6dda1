// The `mcp.resource` step (producers reference §2.4, §2.8): a read, a listing, a prompt or a completion on a
// configured MCP server, over the supervisor's connection (the `resources` port). Reads only: nothing to replay.
import { callLimitMs, done, failed, type NodeKind, type StepContext, type StepResult } from '../nodeKind.js';

const OPS = ['read', 'list', 'prompt', 'complete'] as const;
type Op = (typeof OPS)[number];
/** The fields each op reads (the rest are refused for it, never ignored). */
const OP_FIELDS: Readonly<Record<Op, readonly string[]>> = {
  read: ['uri'],
  list: [],
  prompt: ['name', 'arguments'],
  complete: ['reference', 'argument'],
};
const OPTIONAL = new Set(['arguments']);
const DEFAULT_TIMEOUT_MS = 60_000;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const deferred = (v: unknown): boolean => typeof v === 'string' && (v.includes('{{') || v.startsWith('CEL:'));

/** A resource's text as a value: JSON when it parses, else the text (also a subscribe start's `content`). */
export function resourceContent(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

type Ref = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

function refOf(v: unknown): Ref | null {
  if (!isObject(v)) return null;
  if (v['type'] === 'ref/prompt' && typeof v['name'] === 'string') return { type: 'ref/prompt', name: v['name'] };
  if (v['type'] === 'ref/resource' && typeof v['uri'] === 'string') return { type: 'ref/resource', uri: v['uri'] };
  return null;
}

function argumentOf(v: unknown): { name: string; value: string } | null {
  return isObject(v) && typeof v['name'] === 'string' && typeof v['value'] === 'string'
    ? { name: v['name'], value: v['value'] }
    : null;
}

function checkResource(fields: Readonly<Record<string, unknown>>): string[] {
  const op = fields['op'];
  if (!(OPS as readonly unknown[]).includes(op)) return [`mcp.resource.op must be one of ${OPS.join('|')}`];
  const wanted = OP_FIELDS[op as Op];
  const problems: string[] = [];
  for (const f of ['uri', 'name', 'arguments', 'reference', 'argument']) {
    if (fields[f] !== undefined && !wanted.includes(f)) problems.push(`mcp.resource.${f} does not apply to op: ${op}`);
    if (fields[f] === undefined && wanted.includes(f) && !OPTIONAL.has(f))
      problems.push(`mcp.resource op: ${op} needs ${f}`);
  }
  if (fields['reference'] !== undefined && !deferred(fields['reference']) && refOf(fields['reference']) === null)
    problems.push('mcp.resource.reference must be {type: ref/prompt, name} or {type: ref/resource, uri}');
  if (fields['argument'] !== undefined && !deferred(fields['argument']) && argumentOf(fields['argument']) === null)
    problems.push('mcp.resource.argument must be {name, value} (strings)');
  return problems;
}

async function perform(ctx: StepContext, op: Op, server: string): Promise<StepResult> {
  const { spec } = ctx;
  const ms = callLimitMs(ctx, DEFAULT_TIMEOUT_MS);
  const resources = await (ctx.ports.resources as NonNullable<typeof ctx.ports.resources>)(server);
  if (op === 'read') {
    const uri = String(spec['uri'] ?? '');
    return done({ server, uri, content: resourceContent(await resources.read(uri, ms)) });
  }
  if (op === 'list') return done({ server, resources: await resources.list(ms) });
  if (op === 'prompt') {
    const args = isObject(spec['arguments'])
      ? Object.fromEntries(
          Object.entries(spec['arguments']).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
        )
      : {};
    const name = String(spec['name'] ?? '');
    return done({ server, name, ...((await resources.prompt(name, args, ms)) as Record<string, unknown>) });
  }
  const ref = refOf(spec['reference']);
  const argument = argumentOf(spec['argument']);
  if (ref === null || argument === null) return failed('mcp.resource: reference or argument rendered malformed');
  return done({ server, ...((await resources.complete(ref, argument, ms)) as Record<string, unknown>) });
}

async function runResource(ctx: StepContext): Promise<StepResult> {
  if (!ctx.ports.resources) return failed('mcp.resource: no MCP servers in this process');
  const server = String(ctx.spec['server']);
  try {
    return await perform(ctx, ctx.spec['op'] as Op, server);
  } catch (err) {
    return failed(`mcp.resource: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
  }
}

export const MCP_RESOURCE_KIND: NodeKind = {
  name: 'mcp.resource',
  category: 'integration',
  implemented: true,
  doc: 'Reads from the configured MCP server `server`. `op: read` (`uri`) ⇒ `{server, uri, content}` (the text contents, JSON when they parse); `op: list` ⇒ `{server, resources}` (every page, at most 1000); `op: prompt` (`name`, `arguments`) ⇒ `{server, name, description, messages}`; `op: complete` (`reference` `{type: ref/prompt, name}` or `{type: ref/resource, uri}`, `argument` `{name, value}`) ⇒ `{server, values, total, hasMore}`. A field another op reads is refused at load. Time limit: `timeout` (60 s), never past the run deadline; a server error fails the step `mcp.resource: <op> failed: <reason>`.',
  fields: {
    server: { required: true, doc: 'The MCP server name (the `mcp:` config key).' },
    op: { required: true, doc: 'read | list | prompt | complete.' },
    uri: { doc: '`op: read`: the resource URI (templates).' },
    name: { doc: '`op: prompt`: the prompt name.' },
    arguments: { doc: '`op: prompt`: the prompt arguments (a mapping; non-strings sent as JSON text).' },
    reference: { doc: '`op: complete`: `{type: ref/prompt, name}` or `{type: ref/resource, uri}`.' },
    argument: { doc: '`op: complete`: `{name, value}`, the argument being completed.' },
  },
  check: checkResource,
  run: runResource,
};
