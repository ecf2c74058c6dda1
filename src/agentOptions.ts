// createAgent's inline options as one more config layer: the same keys a YAML file has, written as YAML text so
// that they pass through the same validation (unknown keys, kinds, cross checks) and fail with the same errors.
import { stringify } from 'yaml';
import type { ConfigFlags } from './config/types.js';

/** An MCP server as the `mcp.servers` map has it: `{url, headers?, token?}` or `{command, args?, env?, cwd?}`. */
export type McpServerOption =
  | { url: string; headers?: Record<string, string>; token?: string }
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string };

/** The config sources of an embedded agent, lowest layer first: files < `values` < environment < flags. */
export interface AgentConfigSources {
  /** YAML config files, in order. */
  files?: string[];
  /** Config keys as a YAML file has them, e.g. `{limits: {run: {steps: 5}}}`. */
  values?: Record<string, unknown>;
  /** The environment `AGENTD_*` keys and secrets are read from (default process.env). */
  env?: Record<string, string | undefined>;
  flags?: ConfigFlags;
  /** Base for relative paths (default process.cwd()). */
  cwd?: string;
}

/** The shorthand options, each a config key of the inline layer. */
export interface InlineOptions {
  /** `agent.name`. */
  name?: string;
  /** `agent.instruction`. */
  instruction?: string;
  /** `intelligence.model`. */
  model?: string;
  /** `intelligence.endpoints`: model endpoint URLs in failover order. */
  intelligence?: string | string[];
  /** `mcp.servers`, by name. */
  mcp?: Record<string, McpServerOption>;
  /** `memory`: nothing kept across restarts; otherwise the state directory of the SQLite store (`store.path`). */
  store?: string;
  config?: AgentConfigSources;
}

type Tree = Record<string, unknown>;

function isTree(v: unknown): v is Tree {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `over` laid on `base`, mappings merged key by key. */
function mergeTrees(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] = isTree(prev) && isTree(value) ? mergeTrees(prev, value) : value;
  }
  return out;
}

/** The keys the shorthand options set, as a YAML tree. */
function shorthandTree(opts: InlineOptions): Tree {
  const tree: Tree = {};
  const put = (section: string, key: string, value: unknown): void => {
    if (value === undefined) return;
    tree[section] = { ...(tree[section] as Tree | undefined), [key]: value };
  };
  put('agent', 'name', opts.name);
  put('agent', 'instruction', opts.instruction);
  put('intelligence', 'model', opts.model);
  put('intelligence', 'endpoints', typeof opts.intelligence === 'string' ? [opts.intelligence] : opts.intelligence);
  put('mcp', 'servers', opts.mcp);
  if (opts.store === 'memory') put('store', 'kind', 'memory');
  else if (opts.store !== undefined) put('store', 'path', opts.store);
  return tree;
}

/** The inline layer's YAML text, or null when no inline option is given. */
export function inlineLayer(opts: InlineOptions): { name: string; text: string } | null {
  const tree = mergeTrees(opts.config?.values ?? {}, shorthandTree(opts));
  if (Object.keys(tree).length === 0) return null;
  return { name: 'createAgent options', text: stringify(tree) };
}
