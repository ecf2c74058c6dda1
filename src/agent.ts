// The embedding API: an agent inside your own program. createAgent compiles the config (inline options as one more
// layer) and starts the same runtime the CLI does; run() accepts one message durably and follows its turn.
import { A2aProducer } from './a2a/a2aProducer.js';
import { type InlineOptions, inlineLayer } from './agentOptions.js';
import { checkAgentOptions } from './agentOptionsCheck.js';
import { compileConfig } from './config/compile.js';
import type { Config } from './config/types.js';
import type { InboxOutcome } from './domain/inbox.js';
import type { RunResult } from './domain/runEvent.js';
import { embedProducer, type Producer } from './embeddedProducer.js';
import { DaemonError } from './errors.js';
import { createLogger, type Logger } from './obs/log.js';
import { type MetricsServer, serveMetrics } from './obs/metricsServer.js';
import type { Usage } from './protocol/messages.js';
import { RunEvents, type RunHandle } from './runHandle.js';
import { type Runtime, startRuntime, withListeners } from './runtime/startRuntime.js';
import { type CodeTool, loadCodeTools, moduleSpecifier } from './tools/codeTools.js';
import { loadWorkflow } from './workflows/definitions.js';

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

export interface RunOptions {
  /** The conversation the message belongs to (default `root`). */
  conversation?: string;
  /** Who sends it: its quotas, budgets and tool policies apply (default `operator`). */
  principal?: string;
  /** Aborting it cancels the run, as `cancel()` does. */
  signal?: AbortSignal;
  /** Sets the conversation's mode for this message and the ones after it (`plan`: propose, do not act). */
  mode?: 'plan' | 'execute';
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
  const runtime = await startRuntime(config, {
    log,
    env,
    ...(code ? { codeTools: code } : {}),
    ...(opts.listen === undefined ? {} : { listen: opts.listen }),
    ...(opts.metrics === undefined ? {} : { metrics: opts.metrics }),
    ...(opts.producers ? { producers: opts.producers.map((p) => embedProducer(p, up.outcomeOf)) } : {}),
  }).catch((err: unknown) => {
    up.fail(err);
    throw err;
  });
  up.open(runtime);
  const listeners = { metrics: null as MetricsServer | null };
  const a2aUrl = () => runtime.producers.find((p): p is A2aProducer => p instanceof A2aProducer)?.url ?? null;
  const metricsAddress = () => listeners.metrics?.address ?? runtime.metricsAddress;
  const agent: Agent = {
    config: runtime.config,
    get a2aUrl() {
      return a2aUrl();
    },
    get metricsAddress() {
      return metricsAddress();
    },
    run: (input, o = {}) => startRun(runtime, input, o),
    send: async (text, o = {}) => {
      const { record } = await runtime.supervisor.accept({
        context_id: o.conversation ?? 'root',
        text,
        principal: o.principal ?? 'operator',
      });
      return runtime.supervisor.outcomeOf(record.id);
    },
    serve: async (o = {}) => {
      if (o.listen !== undefined && a2aUrl() === null) {
        await runtime.startProducer(new A2aProducer(), withListeners(runtime.config, { log, listen: o.listen }));
      }
      if (o.metrics !== undefined && metricsAddress() === null) {
        listeners.metrics = await serveMetrics(o.metrics, runtime.supervisor, log);
      }
      return { a2aUrl: a2aUrl(), metricsAddress: metricsAddress() };
    },
    close: async () => {
      await runtime.stop();
      await listeners.metrics?.close();
    },
  };
  runtimes.set(agent, runtime);
  return agent;
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

/** Accepts one message and follows its turn: progress from the run tap, the end from the committed fold. */
async function startRun(runtime: Runtime, input: string, o: RunOptions): Promise<RunHandle> {
  const { supervisor } = runtime;
  const conversation = o.conversation ?? 'root';
  const principal = o.principal ?? 'operator';
  if (o.signal?.aborted) throw new DaemonError('usage_invalid', 'agent.run: the signal was aborted before the run');
  const events = new RunEvents();
  const seen: { turnId: string | null; usage: Usage | null; id: string | null } = {
    turnId: null,
    usage: null,
    id: null,
  };
  // The tap is watched once the run id is known: a worker's progress arrives on I/O, after this continuation.
  const stopCommitted = supervisor.steering.feed.onCommitted((turn) => {
    if (turn.event.id === seen.id && turn.result) seen.usage = turn.result.usage;
  });
  let accepted: Awaited<ReturnType<typeof supervisor.accept>>;
  try {
    // The mode rides on the message itself: a new or evicted conversation has no resident mode to set first.
    const mode = o.mode === undefined ? {} : { mode: o.mode };
    accepted = await supervisor.accept({ context_id: conversation, text: input, principal, ...mode });
  } catch (err) {
    stopCommitted();
    throw err;
  }
  const { record } = accepted;
  seen.id = record.id;
  const cancel = () => supervisor.cancelEvent(record.id, 'cancelled by the embedding program');
  if (o.mode !== undefined) keepMode(runtime, { conversation, principal, mode: o.mode }, cancel, stopCommitted);
  events.push({ type: 'accepted', runId: record.id, conversation });
  const stopTap = supervisor.runTap.watch(record.id, (event) => {
    if ('turnId' in event) seen.turnId = event.turnId;
    if (event.type === 'round') seen.usage = event.usage;
    events.push(event);
  });
  o.signal?.addEventListener('abort', cancel, { once: true });
  // An abort while accept was awaited fired no listener: it is honoured here.
  if (o.signal?.aborted) cancel();
  const result = supervisor
    .outcomeOf(record.id)
    .then((outcome) => {
      const done = runResult(outcome, seen);
      events.push({ type: 'done', runId: record.id, result: done });
      return done;
    })
    .finally(() => {
      stopTap();
      stopCommitted();
      o.signal?.removeEventListener('abort', cancel);
      events.end();
    });
  return { id: record.id, result, events, cancel };
}

/**
 * Sets the conversation's mode for the messages after this one (this one carries it already). A refusal (another
 * principal's conversation) cancels the accepted message and throws, as a refused run.
 */
function keepMode(
  runtime: Runtime,
  run: { conversation: string; principal: string; mode: 'plan' | 'execute' },
  cancel: () => void,
  stopCommitted: () => void,
): void {
  try {
    runtime.supervisor.steering.setMode(run.conversation, run.principal, run.mode);
  } catch (err) {
    cancel();
    stopCommitted();
    const why = err instanceof Error ? err.message : String(err);
    throw new DaemonError('usage_invalid', `agent.run: mode for conversation "${run.conversation}": ${why}`);
  }
}

function runResult(outcome: InboxOutcome, seen: { turnId: string | null; usage: Usage | null }): RunResult {
  return {
    status: outcome.status,
    reply: outcome.reply,
    usage: seen.usage ?? { input_tokens: 0, output_tokens: 0 },
    turnId: seen.turnId,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.error_kind ? { errorKind: outcome.error_kind } : {}),
  };
}

/** The registry's view of the code tools, checked against what the worker will import. */
async function resolveCodeTools(opts: CreateAgentOptions) {
  if (!opts.tools?.length && opts.toolsModule === undefined) return undefined;
  if (opts.toolsModule === undefined) {
    throw new DaemonError('usage_invalid', 'createAgent: `tools` need `toolsModule`, the module that exports them');
  }
  const exported = await loadCodeTools(opts.toolsModule).catch((err: unknown) => {
    throw new DaemonError('usage_invalid', `createAgent: ${err instanceof Error ? err.message : String(err)}`);
  });
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
