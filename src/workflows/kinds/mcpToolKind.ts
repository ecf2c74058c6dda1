// The `mcp.tool` step (producers reference §2.8): one call on a configured MCP server through the supervisor's
// connection, with the step's idempotency key and the attempt in `_meta` so a deduplicating server sees one effect.
import { callLimitMs, done, failed, type NodeKind, pinnedKey, type StepContext, type StepResult } from '../nodeKind.js';

/** reference §2.13 `limits.step_timeout`: the call's limit when the step sets none. */
const DEFAULT_TIMEOUT_MS = 600_000;

async function runMcpTool(ctx: StepContext): Promise<StepResult> {
  const call = ctx.ports.mcp;
  if (!call) return failed('mcp.tool: no MCP servers in this process');
  const server = String(ctx.spec['server']);
  const tool = String(ctx.spec['tool']);
  const meta = {
    'agent/idempotency_key': pinnedKey(ctx),
    'agent/attempt': ctx.attempt,
    'agent/instance': ctx.ports.instance ?? 'agentd',
    'agent/run': ctx.run.id,
  };
  const answer = await call(server, tool, ctx.spec['args'] ?? {}, {
    meta,
    timeoutMs: callLimitMs(ctx, DEFAULT_TIMEOUT_MS),
    signal: ctx.signal,
  });
  if (!answer.is_error) return done(answer.result);
  const text = typeof answer.result === 'string' ? answer.result : JSON.stringify(answer.result);
  return failed(text.replace(/^tool transport error: /, 'transport error: '));
}

function checkIdempotency(fields: Readonly<Record<string, unknown>>): string[] {
  const idem = fields['idempotency'];
  if (idem === undefined || idem === true) return [];
  const value = idem !== null && typeof idem === 'object' ? (idem as Record<string, unknown>)['value'] : undefined;
  return typeof value === 'string' ? [] : ['mcp.tool.idempotency must be true or {value}'];
}

export const MCP_TOOL_KIND: NodeKind = {
  name: 'mcp.tool',
  category: 'integration',
  implemented: true,
  effect: true,
  doc: 'Calls `tool` on the configured MCP server `server` with `args`. `_meta` carries `agent/idempotency_key` (sha256("<run>.<step>")[0:32], or `idempotency.value`), `agent/attempt`, `agent/instance` and `agent/run`. Time limit: the step\'s `timeout` (600 s by default), never past the run deadline. Output: the tool\'s value (structuredContent, else its text as JSON, else the text); `isError` fails the step with its text; a transport failure is `transport error: <e>`.',
  fields: {
    server: { required: true, doc: 'The MCP server name (the `mcp:` config key).' },
    tool: { required: true, doc: 'The tool name as the server lists it.' },
    args: { doc: 'The arguments object (templates or `CEL:`).' },
    idempotency: { doc: '`true` (the step key) or `{value}` to pin the key.' },
  },
  check: checkIdempotency,
  run: runMcpTool,
};
