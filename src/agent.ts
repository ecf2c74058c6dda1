// The embedding API: an agent inside your own program. createAgent compiles the config, opens the store, connects
// MCP servers, registers code tools and starts the supervisor; the Agent sends messages and waits for replies.
import { compileConfig } from './config/compile.js';
import type { Config, ConfigFlags } from './config/types.js';
import type { InboxOutcome } from './domain/inbox.js';
import { DaemonError } from './errors.js';
import { createLogger, type Logger } from './obs/log.js';
import { openStore } from './store/openStore.js';
import type { Store } from './store/store.js';
import { Supervisor } from './supervisor/supervisor.js';
import { type CodeTool, loadCodeTools, moduleSpecifier } from './tools/codeTools.js';
import { ToolSurface } from './tools/surface.js';

export interface CreateAgentOptions {
  /** Config sources, as the CLI has them: YAML files, an environment (default process.env), flags. */
  config?: { files?: string[]; env?: Record<string, string | undefined>; flags?: ConfigFlags; cwd?: string };
  /**
   * Code tools. Their `run` functions execute in each turn's worker process, which imports `toolsModule` to find
   * them: pass the module (a path or URL) that exports these same tools as `tools` (or as its default export).
   */
  tools?: CodeTool[];
  toolsModule?: string | URL;
  log?: Logger;
}

export interface SendOptions {
  /** Default `root`. */
  conversation?: string;
  /** Default `operator`. */
  principal?: string;
}

export interface Agent {
  readonly config: Readonly<Config>;
  readonly supervisor: Supervisor;
  /** Accepts the message durably, then resolves with its turn's outcome: `{status, reply, error?}`. */
  send(text: string, opts?: SendOptions): Promise<InboxOutcome>;
  /** Drains running turns (up to lifecycle.drain_timeout), closes MCP servers and the store. */
  close(): Promise<void>;
}

/** Starts an agent. Throws a DaemonError (`config_invalid`, `store_locked`, `mcp_unreachable`, …) on failure. */
export async function createAgent(opts: CreateAgentOptions = {}): Promise<Agent> {
  const env = opts.config?.env ?? process.env;
  const config = compileConfig({
    files: opts.config?.files ?? [],
    env,
    flags: opts.config?.flags ?? {},
    cwd: opts.config?.cwd ?? process.cwd(),
  });
  const log =
    opts.log ?? createLogger({ level: config.observability.log_level, base: { pid: process.pid, comp: 'supervisor' } });
  const code = await resolveCodeTools(opts);
  const tools = await ToolSurface.start({ config, log, baseEnv: env, ...(code ? { code } : {}) });
  let store: Store;
  try {
    store = openStore(config.store);
  } catch (err) {
    await tools.close();
    throw err;
  }
  const supervisor = new Supervisor({ config, store, log, tools });
  await supervisor.restore();
  return {
    config,
    supervisor,
    send: async (text, o = {}) => {
      const { record } = await supervisor.accept({
        context_id: o.conversation ?? 'root',
        text,
        principal: o.principal ?? 'operator',
      });
      return supervisor.outcomeOf(record.id);
    },
    close: async () => {
      await supervisor.drain(config.lifecycle.drain_timeout);
      await store.close();
      await tools.close();
    },
  };
}

/** The registry's view of the code tools, checked against what the worker will import. */
async function resolveCodeTools(opts: CreateAgentOptions) {
  if (!opts.tools?.length && opts.toolsModule === undefined) return undefined;
  if (opts.toolsModule === undefined) {
    throw new DaemonError('usage_invalid', 'createAgent: `tools` need `toolsModule`, the module that exports them');
  }
  const exported = await loadCodeTools(opts.toolsModule);
  const names = new Set(exported.map((t) => t.name));
  const chosen = opts.tools?.length ? opts.tools : exported;
  for (const tool of chosen) {
    if (!names.has(tool.name)) {
      throw new DaemonError(
        'usage_invalid',
        `createAgent: tool "${tool.name}" is not exported by ${String(opts.toolsModule)}`,
      );
    }
  }
  const defs = chosen.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  return { defs, module: moduleSpecifier(opts.toolsModule) };
}
