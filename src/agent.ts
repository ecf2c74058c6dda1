// The embedding API: an agent inside your own program. createAgent compiles the config (inline options as one more
// layer) and starts the same runtime the CLI does; run() accepts one message durably and follows its turn.
import { A2aProducer } from './a2a/a2aProducer.js';
import { type InlineOptions, inlineLayer } from './agentOptions.js';
import { checkAgentOptions } from './agentOptionsCheck.js';
import { type RunOptions, startRun } from './agentRun.js';
import { resolveCodeTools } from './agentTools.js';
import { compileConfig } from './config/compile.js';
import type { Config } from './config/types.js';
import type { InboxOutcome } from './domain/inbox.js';
import { embedProducer, type Producer } from './embeddedProducer.js';
import { DaemonError } from './errors.js';
import { createLogger, type Logger } from './obs/log.js';
import { type MetricsServer, serveMetrics } from './obs/metricsServer.js';
import type { RunHandle } from './runHandle.js';
import { RunDesk } from './runQuestions.js';
import { type Runtime, startRuntime, withListeners } from './runtime/startRuntime.js';
import type { CodeTool } from './tools/codeTools.js';
import { loadWorkflow } from './workflows/definitions.js';

export type { RunOptions } from './agentRun.js';

export interface CreateAgentOptions extends InlineOptions {
  /**
   * Code tools (see defineTool). Their `run` functions execute in each turn's worker process, which imports
   * `toolsModule` to find them: pass the module (a path or URL) that exports these same tools as `tools`.
   */
  tools?: CodeTool[];
  toolsModule?: string | URL;
  /** Where JSON-line events go (default: stderr at `observability.log_level`). */
  log?: Logger;
  /** Serve A2A at this URL (e.g. `http://127.0.0.1:0`) from the start, overriding `a2a.listen`; null: none. */
  listen?: string | null;
  /** Serve /metrics, /healthz, /readyz at this HOST:PORT, overriding `observability.metrics_addr`; null: none. */
  metrics?: string | null;
  /** Producers of your own, started after the built-in ones (docs/guide/embedding.md, "A producer of your own"). */
  producers?: Producer[];
}

/** @deprecated use RunOptions. */
export type SendOptions = Pick<RunOptions, 'conversation' | 'principal'>;

export interface ServeOptions {
  /** A2A at this URL (default `a2a.listen`, else none), e.g. `http://127.0.0.1:8080`; port 0 picks a free one. */
  listen?: string;
  /** /metrics, /healthz and /readyz at this HOST:PORT (default `observability.metrics_addr`, else none). */
  metrics?: string;
}

export interface Agent {
  readonly config: Readonly<Config>;
  /** The A2A listener's bound URL, or null without one. */
  readonly a2aUrl: string | null;
  /** The metrics listener's bound `HOST:PORT`, or null without one. */
  readonly metricsAddress: string | null;
  /** Accepts `input` durably (resolved `id`), then runs its turn; see RunHandle. Throws only when not accepted. */
  run(input: string, opts?: RunOptions): Promise<RunHandle>;
  /**
   * Answers a question a run's turn waits on (a `question` RunEvent): `id` is the run id (its oldest open question),
   * the event's `questionId`, or, while serving A2A, the id of a task in `input-required`. Rejects with
   * `usage_invalid` when nothing with that id waits for an answer.
   */
  answer(id: string, answer: string): Promise<void>;
  /** Accepts the message durably, then resolves with its turn's outcome: `{status, reply, error?}`. */
  send(text: string, opts?: SendOptions): Promise<InboxOutcome>;
  /** Starts the A2A and metrics listeners on this agent's runtime; resolves with their bound addresses. */
  serve(opts?: ServeOptions): Promise<{ a2aUrl: string | null; metricsAddress: string | null }>;
  /** Drains running turns (up to lifecycle.drain_timeout), then stops listeners, the store and MCP servers. */
  close(): Promise<void>;
}

const runtimes = new WeakMap<Agent, Runtime>();

/** The runtime behind an agent (tests and the package's own modules; not exported from the package). */
export function runtimeOf(agent: Agent): Runtime {
  const runtime = runtimes.get(agent);
  if (!runtime) throw new DaemonError('usage_invalid', 'runtimeOf: not an agent made by createAgent');
  return runtime;
}

/**
 * Starts an agent. Throws a DaemonError on failure: `usage_invalid` for an unknown option or one of the wrong type
 * (before anything starts), `config_invalid` for a value the config refuses, `store_locked`, `mcp_unreachable`, …
 */
export async function createAgent(opts: CreateAgentOptions = {}): Promise<Agent> {
  checkAgentOptions(opts);
  const { config, env, log } = agentConfig(opts);
  const code = await resolveCodeTools(opts);
  const up = supervisorOnceUp();
  const desk = new RunDesk();
  // Without a listener now, the A2A backend still starts with the runtime (restart recovery, replayed turns folding
  // into their tasks, as in the daemon); serve({listen}) opens its listener later.
  const listening = opts.listen === undefined ? config.a2a.listen !== null : opts.listen !== null;
  const own = opts.producers?.map((p) => embedProducer(p, up.outcomeOf)) ?? [];
  const runtime = await startRuntime(config, {
    ...{ log, env, runs: desk },
    ...(code ? { codeTools: code } : {}),
    ...(opts.listen === undefined ? {} : { listen: opts.listen }),
    ...(opts.metrics === undefined ? {} : { metrics: opts.metrics }),
    producers: [...(listening ? [] : [new A2aProducer({ listenLater: true })]), ...own],
  }).catch((err: unknown) => {
    up.fail(err);
    throw err;
  });
  up.open(runtime);
  const agent = agentOn(runtime, desk, log);
  runtimes.set(agent, runtime);
  return agent;
}

/** The agent's methods over its runtime. */
function agentOn(runtime: Runtime, desk: RunDesk, log: Logger): Agent {
  const a2a = () => runtime.producers.find((p): p is A2aProducer => p instanceof A2aProducer) ?? null;
  const listeners = servingOn(runtime, log, a2a);
  return {
    config: runtime.config,
    get a2aUrl() {
      return listeners.a2aUrl();
    },
    get metricsAddress() {
      return listeners.metricsAddress();
    },
    run: (input, o = {}) => startRun(runtime, desk, input, o),
    answer: async (id, text) => {
      if (typeof text !== 'string') throw new DaemonError('usage_invalid', 'agent.answer: the answer must be a string');
      if (desk.answer(id, text) || (await a2a()?.answer(id, text))) return;
      throw new DaemonError('usage_invalid', `agent.answer: no open question for "${id}"`);
    },
    send: async (text, o = {}) => {
      const { record } = await runtime.supervisor.accept({
        context_id: o.conversation ?? 'root',
        text,
        principal: o.principal ?? 'operator',
      });
      return runtime.supervisor.outcomeOf(record.id);
    },
    serve: listeners.serve,
    close: async () => {
      // Nobody will answer once the program closes the agent: a turn waiting on a question ends instead of the drain.
      desk.close();
      await listeners.close(() => runtime.stop());
    },
  };
}

/**
 * serve()'s listeners. Each opens once: a call while one is opening joins it (two concurrent serve() calls must
 * not open two, one of them outliving close()); after close() began, serve() is refused.
 */
function servingOn(runtime: Runtime, log: Logger, a2a: () => A2aProducer | null) {
  let closed = false;
  let metrics: Promise<MetricsServer | null> | null = null;
  let opened: MetricsServer | null = null;
  const a2aUrl = () => a2a()?.url ?? null;
  const metricsAddress = () => opened?.address ?? runtime.metricsAddress;
  const openMetrics = (addr: string) =>
    serveMetrics(addr, runtime.supervisor, log).then(
      (server) => (opened = server),
      (err: unknown) => {
        metrics = null;
        throw err;
      },
    );
  return {
    a2aUrl,
    metricsAddress,
    serve: async (o: ServeOptions = {}) => {
      if (closed) throw new DaemonError('usage_invalid', 'agent.serve: the agent is closed');
      const config = withListeners(runtime.config, { log, ...o });
      const a2aUp = o.listen === undefined ? undefined : a2a()?.listen(config);
      if (o.metrics !== undefined && runtime.metricsAddress === null) metrics ??= openMetrics(o.metrics);
      await Promise.all([a2aUp, o.metrics === undefined ? undefined : metrics]);
      return { a2aUrl: a2aUrl(), metricsAddress: metricsAddress() };
    },
    close: async (stopRuntime: () => Promise<void>) => {
      closed = true;
      await stopRuntime();
      await (await metrics?.catch(() => null))?.close();
    },
  };
}

/** The options' config (the inline options one more layer over the files, as the CLI's flags are) and logger. */
function agentConfig(opts: CreateAgentOptions) {
  const env = opts.config?.env ?? process.env;
  const inline = inlineLayer(opts);
  const config = compileConfig({
    files: opts.config?.files ?? [],
    ...(inline ? { inline } : {}),
    env,
    flags: opts.config?.flags ?? {},
    cwd: opts.config?.cwd ?? process.cwd(),
    workflows: loadWorkflow,
  });
  const log =
    opts.log ?? createLogger({ level: config.observability.log_level, base: { pid: process.pid, comp: 'supervisor' } });
  return { config, env, log };
}

/** Outcomes for producers started before startRuntime returns: they wait for its supervisor. */
function supervisorOnceUp() {
  let open: (runtime: Runtime) => void = () => {};
  let fail: (err: unknown) => void = () => {};
  const ready = new Promise<Runtime>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  ready.catch(() => {}); // nobody may be waiting
  const outcomeOf = (id: string) => ready.then((r) => r.supervisor.outcomeOf(id));
  return { open, fail, outcomeOf };
}
