// The tool surface: the registry over internal, code and MCP tools, each turn's plan, and the supervisor's own
// MCP connections (listing at start, re-listing on tools/list_changed, and the calls a policy must judge).
import type { Config, McpServerConfig, PolicyRule } from '../config/types.js';
import { DaemonError, describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { McpServerSpec } from '../protocol/frames.js';
import { grantedInternalContracts, modelDef } from './internalContracts.js';
import type { ToolResult } from './internalTools.js';
import type { McpConnection, McpSkillInfo } from './mcp/mcpConnection.js';
import { stdioEnv } from './mcp/mcpEnv.js';
import type { McpResources } from './mcp/mcpResources.js';
import { couldMatch } from './policy.js';
import { buildRegistry, type McpToolListing, type RegisteredTool, selectTools } from './registry.js';
import { familyFacts } from './toolFamilies.js';
import { emptyToolPlan, planTools, type ToolPlan } from './toolPlan.js';

/** A code tool as the registry sees it; its `run` lives in `module`, which the worker imports. */
export interface CodeToolDef {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * What a turn's judged calls go by, captured at its launch: a reload never changes the policies, routes or
 * timeouts under a running turn (interfaces §3.6).
 */
export interface TurnJudging {
  policies: readonly PolicyRule[];
  /** The registry as planned at launch (policy facts, judged routes). */
  tools: ReadonlyMap<string, RegisteredTool>;
  judged: ReadonlySet<string>;
  callTimeout: number;
  deadline: number;
}

export interface ToolSurfaceOptions {
  config: Readonly<Config>;
  log: Logger;
  /** The environment stdio servers inherit an allow-listed part of. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  code?: { defs: CodeToolDef[]; module: string };
}

/** Builds the wire spec of a configured server. Credentials go into headers/env here and nowhere else. */
function serverSpec(
  name: string,
  server: McpServerConfig,
  baseEnv: Readonly<Record<string, string | undefined>>,
): McpServerSpec {
  if ('url' in server) {
    const auth: Record<string, string> = server.token ? { authorization: `Bearer ${server.token}` } : {};
    return { name, transport: 'http', url: server.url, headers: { ...server.headers, ...auth } };
  }
  const env = stdioEnv(baseEnv, server.env);
  return { name, transport: 'stdio', command: server.command, args: [...server.args], env, cwd: server.cwd };
}

export class ToolSurface {
  private readonly connections = new Map<string, McpConnection>();
  private readonly listings = new Map<string, McpToolListing>();
  private readonly skillListings = new Map<string, McpSkillInfo[]>();
  private readonly specs = new Map<string, McpServerSpec>();
  private byName = new Map<string, RegisteredTool>();
  private current: ToolPlan = emptyToolPlan();
  private gated: string[] = [];
  /** Connections of servers a reload removed, open while a running turn still routes judged calls there. */
  private readonly retiring = new Map<string, McpConnection>();
  /** Running turns per server their judged calls route to. */
  private readonly holds = new Map<string, number>();
  /** `serverSpecKeys`, built again after a reconcile. */
  private specKeys: ReadonlySet<string> | null = null;
  /** The connect phase of the last reconcile: reconciles run one after another. */
  private reconciling: Promise<unknown> = Promise.resolve();

  private constructor(private readonly opts: ToolSurfaceOptions) {
    for (const [name, server] of Object.entries(opts.config.mcp.servers)) {
      this.specs.set(name, serverSpec(name, server, opts.baseEnv));
    }
  }

  /** Connects to every configured MCP server and lists its tools; the first failure throws `mcp '<name>': …`. */
  static async start(opts: ToolSurfaceOptions): Promise<ToolSurface> {
    const surface = new ToolSurface(opts);
    try {
      await Promise.all([...surface.specs.keys()].map((name) => surface.connect(name)));
    } catch (err) {
      await surface.close();
      throw err;
    }
    surface.rebuild();
    return surface;
  }

  /** The plan every root and conversation turn gets now. */
  plan(): ToolPlan {
    return this.current;
  }

  /** The registered tool named `name` (for policy facts). */
  tool(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  /** Where a judged MCP tool lives, or undefined when `name` is not one. */
  judgedRoute(name: string): { server: string; wire: string } | undefined {
    return routeIn(this.judging(), name);
  }

  /** What a turn launched now judges its calls by (the plan and the config in force). */
  judging(): TurnJudging {
    const { security, mcp, limits } = this.opts.config;
    const judged = new Set(this.current.judged);
    const { policies } = security;
    return { policies, tools: this.byName, judged, callTimeout: mcp.call_timeout, deadline: limits.run.deadline };
  }

  /**
   * A running turn routes its judged calls by `judging`: a server a reload removes meanwhile stays connected
   * until the returned release (the turn's end) drops its last holder.
   */
  hold(judging: TurnJudging): () => void {
    const servers = new Set(
      [...judging.judged].map((n) => judging.tools.get(n)?.server).filter((s) => s !== undefined),
    );
    for (const s of servers) this.holds.set(s, (this.holds.get(s) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const s of servers) {
        const left = (this.holds.get(s) ?? 1) - 1;
        if (left > 0) this.holds.set(s, left);
        else this.holds.delete(s);
        const conn = this.retiring.get(s);
        if (left <= 0 && conn) {
          this.retiring.delete(s);
          this.closeConnection(s, conn);
        }
      }
    };
  }

  /** Specs of the servers a turn's routes dial, so the worker connects to exactly those. */
  serverSpecs(routes: Readonly<Record<string, [string, string]>>): McpServerSpec[] {
    const names = [...new Set(Object.values(routes).map(([server]) => server))].sort();
    return names.map((n) => this.specs.get(n)).filter((s): s is McpServerSpec => s !== undefined);
  }

  /**
   * Every configured server's spec as a worker keys the connection it keeps (its JSON): a reused worker holding a
   * spec not in this set keeps a connection the config no longer describes (supervisor/workerPool.ts).
   */
  serverSpecKeys(): ReadonlySet<string> {
    this.specKeys ??= new Set([...this.specs.values()].map((spec) => JSON.stringify(spec)));
    return this.specKeys;
  }

  /** Code tools a permission rule could match: the worker asks before each call. */
  gatedCodeTools(): string[] {
    return this.gated;
  }

  /** The module the worker imports for code tools, when the plan has any. */
  get codeToolsModule(): string | null {
    return this.current.code.length > 0 ? (this.opts.code?.module ?? null) : null;
  }

  /** Runs a judged MCP call on the supervisor's connection (reconnecting once if the server went away). */
  async callJudged(
    name: string,
    args: unknown,
    call: { meta: Record<string, unknown>; timeoutMs: number },
  ): Promise<ToolResult> {
    const route = this.judgedRoute(name);
    if (!route) return { result: `error: no such tool '${name}'`, is_error: true };
    return this.callRoute(route, args, call);
  }

  /** Calls a server's tool on the supervisor's connection; never throws. */
  async callRoute(
    route: { server: string; wire: string },
    args: unknown,
    call: { meta: Record<string, unknown>; timeoutMs: number; signal?: AbortSignal },
  ): Promise<ToolResult> {
    let conn: McpConnection;
    try {
      conn = await this.live(route.server);
    } catch (err) {
      return { result: `tool transport error: ${describeError(err)}`, is_error: true };
    }
    return conn.callTool(route.wire, args, call);
  }

  /**
   * The MCP tool that answers knowledge.search (reference §7) or knowledge.get: tools.overrides, else
   * knowledge.server's tool of that name (`search` too for knowledge.search); null when neither is configured or
   * the server does not list the tool.
   */
  knowledgeRoute(
    tool: 'knowledge.search' | 'knowledge.get' = 'knowledge.search',
  ): { server: string; wire: string } | null {
    const { overrides } = this.opts.config.tools;
    const mapped = Object.hasOwn(overrides, tool) ? overrides[tool] : undefined;
    const server = mapped?.server ?? this.opts.config.knowledge.server;
    if (server === null) return null;
    const listed = this.listings.get(server)?.tools.map((t) => t.name) ?? [];
    const names = tool === 'knowledge.search' ? [tool, 'search'] : [tool];
    const wire = mapped ? mapped.tool : names.find((n) => listed.includes(n));
    return wire !== undefined && listed.includes(wire) ? { server, wire } : null;
  }

  /** Every skill the skills.sources servers listed at start, by server. */
  skills(): ReadonlyMap<string, readonly McpSkillInfo[]> {
    return this.skillListings;
  }

  /** A skill's body from its server. Rejects with a short reason. */
  async readSkill(server: string, skill: McpSkillInfo, timeoutMs: number): Promise<string> {
    return (await this.live(server)).readSkill(skill, { timeoutMs });
  }

  /** A configured server's resources on the supervisor's connection (subscribe starts). Rejects without one. */
  async resources(server: string): Promise<McpResources> {
    if (!this.specs.has(server)) throw new DaemonError('config_invalid', `no MCP server "${server}" is configured`);
    return (await this.live(server)).resources;
  }

  /** The server's connection (or a removed one a running turn still holds), reconnected once if it went away. */
  private async live(server: string): Promise<McpConnection> {
    const conn = this.connections.get(server) ?? this.retiring.get(server);
    return conn && conn.lostReason === null ? conn : this.connect(server);
  }

  /** What `agentd --capabilities` reports about tools. */
  describe(): { internal_tools: string[]; code_tools: string[]; mcp: Record<string, unknown> } {
    const mcp: Record<string, unknown> = {};
    for (const [name, spec] of this.specs) {
      const listing = this.listings.get(name);
      mcp[name] = { transport: spec.transport, tools: listing?.tools.map((t) => t.name) ?? [] };
    }
    const plan = this.current;
    const internal = plan.internal.filter((n) => this.byName.get(n)?.class === 'internal');
    return { internal_tools: internal, code_tools: plan.code, mcp };
  }

  /**
   * Brings the MCP connections in line with the config now in force (a reload): a server no longer configured, or
   * configured differently, is closed once no running turn routes to it; a new one is connected (a failure is
   * logged and leaves it out). The plan is built again at once, without the removed servers, so a turn launched
   * while connections open already has the new policies, and again once they are open. Never rejects.
   */
  reconcile(): Promise<{ opened: string[]; closed: string[] }> {
    const wanted = new Map(
      Object.entries(this.opts.config.mcp.servers).map(([n, s]) => [n, serverSpec(n, s, this.opts.baseEnv)]),
    );
    const same = (name: string): boolean => JSON.stringify(wanted.get(name)) === JSON.stringify(this.specs.get(name));
    const closed = [...this.specs.keys()].filter((name) => !same(name));
    for (const name of closed) {
      const conn = this.connections.get(name);
      for (const map of [this.connections, this.listings, this.skillListings, this.specs]) map.delete(name);
      if (conn) this.retire(name, conn);
    }
    const opened = [...wanted.keys()].filter((name) => !this.specs.has(name));
    for (const name of opened) this.specs.set(name, wanted.get(name) as McpServerSpec);
    this.specKeys = null;
    this.rebuild();
    const connected = this.reconciling.then(async () => {
      await Promise.all(opened.map((name) => this.connect(name).catch(() => undefined)));
      this.rebuild();
      return { opened, closed };
    });
    this.reconciling = connected;
    return connected;
  }

  async close(): Promise<void> {
    const all = [...this.connections.values(), ...this.retiring.values()];
    this.connections.clear();
    this.retiring.clear();
    await Promise.all(all.map((c) => c.close()));
  }

  /** A removed server's connection: closed now, or once the last running turn routing to it ends. */
  private retire(name: string, conn: McpConnection): void {
    if ((this.holds.get(name) ?? 0) === 0) {
      this.closeConnection(name, conn);
      return;
    }
    const older = this.retiring.get(name);
    if (older) this.closeConnection(name, older);
    this.retiring.set(name, conn);
  }

  private closeConnection(name: string, conn: McpConnection): void {
    conn.close().catch(() => undefined);
    this.opts.log.info('mcp.closed', { server: name });
  }

  private async connect(name: string): Promise<McpConnection> {
    const spec = this.specs.get(name);
    if (!spec) throw new DaemonError('mcp_unreachable', `mcp '${name}': not configured`);
    const { McpConnection } = await import('./mcp/mcpConnection.js');
    let conn: McpConnection;
    let tools: Awaited<ReturnType<McpConnection['listTools']>>;
    try {
      conn = await McpConnection.connect(spec, { clientName: `agentd/${this.opts.config.agent.name}` });
      tools = await conn.listTools();
    } catch (err) {
      this.opts.log.error('mcp.unreachable', { server: name, err: describeError(err) });
      throw new DaemonError('mcp_unreachable', `mcp '${name}': ${describeError(err)}`);
    }
    if (this.specs.get(name) !== spec) {
      // A reload removed or changed the server while it connected: this connection is nobody's.
      await conn.close().catch(() => undefined);
      throw new DaemonError('mcp_unreachable', `mcp '${name}': removed by a reload while connecting`);
    }
    this.connections.set(name, conn);
    this.listings.set(name, { server: name, tools });
    if (this.opts.config.skills.sources.includes(name)) await this.listSkills(name, conn);
    this.opts.log.info('mcp.listed', { server: name, transport: spec.transport, tools: tools.length });
    conn.onToolsChanged(() => void this.relist(name, conn));
    return conn;
  }

  /** A skill source that cannot list its skills offers none; the agent still starts. */
  private async listSkills(name: string, conn: McpConnection): Promise<void> {
    try {
      const skills = await conn.listSkills();
      this.skillListings.set(name, skills);
      this.opts.log.info('skills.listed', { server: name, skills: skills.length });
    } catch (err) {
      this.skillListings.set(name, []);
      this.opts.log.warn('skills.listed', { server: name, err: describeError(err) });
    }
  }

  private async relist(name: string, conn: McpConnection): Promise<void> {
    try {
      const tools = await conn.listTools();
      this.listings.set(name, { server: name, tools });
      this.opts.log.info('mcp.tools_changed', { server: name, tools: tools.length });
      this.rebuild();
    } catch (err) {
      this.opts.log.warn('mcp.tools_changed', { server: name, err: describeError(err) });
    }
  }

  private rebuild(): void {
    const { config, log } = this.opts;
    const registry = buildRegistry({
      internal: grantedInternalContracts(familyFacts(config)).map((c) => ({ ...modelDef(c), family: c.family })),
      code: this.opts.code?.defs ?? [],
      mcp: [...this.listings.values()],
    });
    for (const warning of registry.warnings) log.warn('registry.warning', { warning });
    const selected = selectTools(registry.tools, config.agent.tools);
    this.byName = new Map(selected.map((t) => [t.name, t]));
    this.current = planTools(selected, config.security.policies);
    const { policies } = config.security;
    this.gated = selected.filter((t) => t.class === 'code' && couldMatch(policies, t)).map((t) => t.name);
  }
}

/** Where a judged MCP tool lives under `judging`, or undefined when `name` is not one there. */
export function routeIn(judging: TurnJudging, name: string): { server: string; wire: string } | undefined {
  if (!judging.judged.has(name)) return undefined;
  const tool = judging.tools.get(name);
  return tool?.server && tool.wire ? { server: tool.server, wire: tool.wire } : undefined;
}
