// The embedding API: an agent inside your own program. createAgent compiles the config and starts the same
// runtime the CLI does (tool surface, store, supervisor, and on request the A2A and metrics listeners).
import { A2aProducer } from './a2a/a2aProducer.js';
import { compileConfig } from './config/compile.js';
import type { Config, ConfigFlags } from './config/types.js';
import type { InboxOutcome } from './domain/inbox.js';
import { DaemonError } from './errors.js';
import { createLogger, type Logger } from './obs/log.js';
import type { Producer } from './runtime/producer.js';
import { startRuntime } from './runtime/startRuntime.js';
import type { Supervisor } from './supervisor/supervisor.js';
import { type CodeTool, loadCodeTools, moduleSpecifier } from './tools/codeTools.js';

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
  /** Serve A2A at this URL (e.g. `http://127.0.0.1:0`), overriding `a2a.listen`; null: no listener. */
  listen?: string | null;
  /** Serve /metrics, /healthz, /readyz at this HOST:PORT, overriding `observability.metrics_addr`; null: none. */
  metrics?: string | null;
  /** Producers of your own, started after the built-in ones (see the README's "add a producer"). */
  producers?: Producer[];
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
  /** The A2A listener's bound URL, or null without one. */
  readonly a2aUrl: string | null;
  /** The metrics listener's bound `HOST:PORT`, or null without one. */
  readonly metricsAddress: string | null;
  /** Accepts the message durably, then resolves with its turn's outcome: `{status, reply, error?}`. */
  send(text: string, opts?: SendOptions): Promise<InboxOutcome>;
  /** Drains running turns (up to lifecycle.drain_timeout), then stops listeners, the store and MCP servers. */
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
  const runtime = await startRuntime(config, {
    log,
    env,
    ...(code ? { codeTools: code } : {}),
    ...(opts.listen === undefined ? {} : { listen: opts.listen }),
    ...(opts.metrics === undefined ? {} : { metrics: opts.metrics }),
    ...(opts.producers ? { producers: opts.producers } : {}),
  });
  const { supervisor } = runtime;
  const a2a = runtime.producers.find((p): p is A2aProducer => p instanceof A2aProducer);
  return {
    config: runtime.config,
    supervisor,
    a2aUrl: a2a?.url ?? null,
    metricsAddress: runtime.metricsAddress,
    send: async (text, o = {}) => {
      const { record } = await supervisor.accept({
        context_id: o.conversation ?? 'root',
        text,
        principal: o.principal ?? 'operator',
      });
      return supervisor.outcomeOf(record.id);
    },
    close: () => runtime.stop(),
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
