// The tool registry (reference §9.1): internal, code and MCP tools under one namespace, collisions resolved, and
// the agent.tools selection (§9.2). Pure: takes listings, returns tools and warnings; no connections, no logger.
import type { AgentConfig } from '../config/types.js';

export type ToolClass = 'internal' | 'code' | 'mcp';

export interface RegisteredTool {
  /** The name the model calls. */
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  class: ToolClass;
  /** Internal tools: `memory` for `memory.get`, the bare name for an undotted tool. */
  family?: string;
  /** MCP tools: the server it comes from. */
  server?: string;
  /** MCP tools: the server's own name for the tool. */
  wire?: string;
  /** MCP `annotations.readOnlyHint`. */
  readOnly?: boolean;
  /** Policy tags (untrusted_input, sensitive, egress). */
  tags: string[];
}

export interface McpToolListing {
  server: string;
  tools: Array<{
    name: string;
    description?: string;
    inputSchema: Record<string, unknown>;
    annotations?: { readOnlyHint?: boolean };
  }>;
  /** Tags every tool of this server carries (for security.policies `tags`). */
  tags?: string[];
}

export interface RegistryInput {
  internal: Array<{
    name: string;
    description: string;
    input_schema: Record<string, unknown>;
    family: string;
    tags?: string[];
  }>;
  code: Array<{ name: string; description: string; input_schema: Record<string, unknown>; tags?: string[] }>;
  mcp: McpToolListing[];
}

export interface Registry {
  /** Internal first (given order), then code (given order), then MCP sorted by server, then wire name. */
  tools: RegisteredTool[];
  /** One line per tool renamed or ignored. */
  warnings: string[];
}

type McpEntry = { server: string; tool: McpToolListing['tools'][number]; tags: string[] };

/**
 * Builds the registry. Precedence internal > code > MCP. An MCP tool keeps its bare name only when no internal or
 * code tool has it and no other server offers it; otherwise EVERY server's copy becomes `<server>.<tool>`, so a
 * name never depends on which server was listed first. A name still taken after that is ignored with a warning.
 */
export function buildRegistry(input: RegistryInput): Registry {
  const tools: RegisteredTool[] = [];
  const warnings: string[] = [];
  const taken = new Set<string>();
  for (const tool of input.internal) {
    if (taken.has(tool.name)) {
      warnings.push(`internal tool "${tool.name}" listed twice; the second is ignored`);
      continue;
    }
    taken.add(tool.name);
    const { name, description, family } = tool;
    tools.push({
      name,
      description,
      input_schema: objectSchema(tool.input_schema),
      class: 'internal',
      family,
      tags: [...(tool.tags ?? [])],
    });
  }
  for (const tool of input.code) {
    if (taken.has(tool.name)) {
      warnings.push(`code tool "${tool.name}" ignored: the name is already taken by an internal or code tool`);
      continue;
    }
    taken.add(tool.name);
    const { name, description } = tool;
    tools.push({
      name,
      description,
      input_schema: objectSchema(tool.input_schema),
      class: 'code',
      tags: [...(tool.tags ?? [])],
    });
  }
  tools.push(...registerMcp(mcpEntries(input.mcp, warnings), taken, warnings));
  return { tools, warnings };
}

/** Every MCP tool once per (server, wire name), sorted by server then tool; duplicates within a server warned. */
function mcpEntries(listings: McpToolListing[], warnings: string[]): McpEntry[] {
  const entries: McpEntry[] = [];
  const seen = new Set<string>();
  const sorted = [...listings].sort((a, b) => compare(a.server, b.server));
  for (const listing of sorted) {
    for (const tool of [...listing.tools].sort((a, b) => compare(a.name, b.name))) {
      const key = JSON.stringify([listing.server, tool.name]);
      if (seen.has(key)) {
        warnings.push(`mcp tool "${tool.name}" listed twice by server "${listing.server}"; the second is ignored`);
        continue;
      }
      seen.add(key);
      entries.push({ server: listing.server, tool, tags: [...(listing.tags ?? [])] });
    }
  }
  return entries;
}

/** Bare names first (unique and free), then the prefixed ones, so the outcome is independent of listing order. */
function registerMcp(entries: McpEntry[], taken: Set<string>, warnings: string[]): RegisteredTool[] {
  const reserved = new Set(taken);
  const offers = new Map<string, number>();
  for (const entry of entries) offers.set(entry.tool.name, (offers.get(entry.tool.name) ?? 0) + 1);
  const bare = (entry: McpEntry): boolean => offers.get(entry.tool.name) === 1 && !reserved.has(entry.tool.name);
  const names = new Map<McpEntry, string>();
  for (const entry of entries.filter(bare)) {
    names.set(entry, entry.tool.name);
    taken.add(entry.tool.name);
  }
  for (const entry of entries.filter((e) => !bare(e))) {
    const { server, tool } = entry;
    const prefixed = `${server}.${tool.name}`;
    if (taken.has(prefixed)) {
      warnings.push(
        `mcp tool "${tool.name}" of server "${server}" ignored: "${tool.name}" and "${prefixed}" are taken`,
      );
      continue;
    }
    const why = reserved.has(tool.name) ? 'an internal or code tool' : 'offered by another server too';
    warnings.push(`mcp tool "${tool.name}" of server "${server}" registered as "${prefixed}": the bare name is ${why}`);
    names.set(entry, prefixed);
    taken.add(prefixed);
  }
  return entries.flatMap((entry) => {
    const name = names.get(entry);
    return name === undefined ? [] : [mcpTool(entry, name)];
  });
}

function mcpTool({ server, tool, tags }: McpEntry, name: string): RegisteredTool {
  const registered: RegisteredTool = {
    name,
    description: tool.description ?? '',
    input_schema: objectSchema(tool.inputSchema),
    class: 'mcp',
    server,
    wire: tool.name,
    tags,
  };
  const readOnly = tool.annotations?.readOnlyHint;
  if (typeof readOnly === 'boolean') registered.readOnly = readOnly;
  return registered;
}

/** A usable input schema: an object schema as given, anything else `{type: 'object'}`. */
function objectSchema(schema: unknown): Record<string, unknown> {
  const isObject = schema !== null && typeof schema === 'object' && !Array.isArray(schema);
  return isObject && (schema as Record<string, unknown>)['type'] === 'object'
    ? (schema as Record<string, unknown>)
    : { type: 'object' };
}

/** Code-unit order, independent of locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The tools agent.tools grants root and conversation turns (§9.2). Internal entries match a name or a family
 * (`memory` grants `memory.get`…); MCP entries match the registered name, the server's tool name or the server;
 * code entries match exact names. An entry that matches nothing grants nothing.
 */
export function selectTools(
  tools: RegisteredTool[],
  selection: Pick<AgentConfig['tools'], 'internal' | 'mcp' | 'code'>,
): RegisteredTool[] {
  return tools.filter((tool) => {
    const chosen = selection[tool.class];
    if (chosen === 'all') return true;
    if (chosen === 'none') return false;
    return chosen.some((entry) => entryMatches(entry, tool));
  });
}

function entryMatches(entry: string, tool: RegisteredTool): boolean {
  if (entry === tool.name) return true;
  if (tool.class === 'internal') return entry === tool.family;
  if (tool.class === 'mcp') return entry === tool.wire || entry === tool.server;
  return false;
}
