// The tool plan of one turn (reference §9.3, seed 000 "Building the snapshot"): what the model sees and where
// each call runs. Pure: takes the selected registry tools and the policies, returns plain data for the snapshot.
import type { PolicyRule } from '../config/types.js';
import type { ToolDef } from '../protocol/messages.js';
import { isReadOnlyInternal } from './internalContracts.js';
import { couldMatch } from './policy.js';
import type { RegisteredTool } from './registry.js';

export interface ToolPlan {
  /** What the model sees, in registry order. */
  tools: ToolDef[];
  /** Names that round-trip to the supervisor: internal tools and judged MCP tools. */
  internal: string[];
  /** Name → [server, wire tool] for MCP tools the worker dials itself. */
  mcp_routes: Record<string, [string, string]>;
  /** The distinct servers of mcp_routes, sorted: the worker connects to exactly these. */
  mcp_servers: string[];
  /** Code tools: run in the worker's own process. */
  code: string[];
  /** MCP tools moved to `internal` because a policy could apply, so the supervisor judges each call. */
  judged: string[];
  /** Tools plan mode may run: read-only internal tools and MCP tools annotated `readOnlyHint`. */
  read_only: string[];
}

/** A plan with no tools. */
export function emptyToolPlan(): ToolPlan {
  return { tools: [], internal: [], mcp_routes: {}, mcp_servers: [], code: [], judged: [], read_only: [] };
}

/** Splits the tools by where their calls run. */
export function planTools(tools: RegisteredTool[], policies: readonly PolicyRule[]): ToolPlan {
  const plan = emptyToolPlan();
  for (const tool of tools) {
    plan.tools.push({ name: tool.name, description: tool.description, input_schema: tool.input_schema });
    const internalReadOnly = tool.class === 'internal' && isReadOnlyInternal(tool.name);
    if (internalReadOnly || (tool.class === 'mcp' && tool.readOnly === true)) plan.read_only.push(tool.name);
    if (tool.class === 'internal') plan.internal.push(tool.name);
    else if (tool.class === 'code') plan.code.push(tool.name);
    else if (couldMatch(policies, tool)) {
      plan.internal.push(tool.name);
      plan.judged.push(tool.name);
    } else plan.mcp_routes[tool.name] = [tool.server ?? '', tool.wire ?? tool.name];
  }
  const servers = new Set(Object.values(plan.mcp_routes).map(([server]) => server));
  plan.mcp_servers = [...servers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return plan;
}
