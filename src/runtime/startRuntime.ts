// The one runtime root: builds the tool surface, the store, the supervisor, the metrics listener, the pressure
// watch and the producers in that order, restores, and stops them in the reverse order (producers' intake first,
// then the drain, then producers, listeners, store and tools). Every part reads one live config that a reload
// swaps. The job, the daemon and createAgent all start here; signals and the exit code stay with cli/.
import { checkA2a, listenProblem } from '../config/a2aKeys.js';
import type { Config } from '../config/types.js';
import { DaemonError, describeError } from '../errors.js';
import { observeNotifyLag, registerLeaseGauges } from '../obs/leaseGauges.js';
import type { Logger } from '../obs/log.js';
import { type MetricsServer, serveMetrics } from '../obs/metricsServer.js';
import { loadTracer, settleTracer, type Tracer } from '../obs/tracing.js';
import { connectStore } from '../store/openStore.js';
import type { Accepted, Store } from '../store/store.js';
import { Supervisor } from '../supervisor/supervisor.js';
import type { AcceptInput } from '../supervisor/supervisorOptions.js';
import { ToolSurface, type ToolSurfaceOptions } from '../tools/surface.js';
import type { PressureNow } from '../triggers/shedPolicy.js';
import { buildTriggers, type Triggers } from '../triggers/triggers.js';
import { type LiveConfig, liveConfig } from './liveConfig.js';
import { type PressureProbe, systemProbe } from './pressureProbe.js';
import { watchPressure } from './pressureWatch.js';
import type { Producer, ProducerContext } from './producer.js';
import { PRODUCERS } from './producerList.js';
import { ProducerRegistry } from './producers.js';
import { type ReloadReport, type ReloadSource, reloader } from './reload.js';
import { gatedPort, type RestoreGate, restoreGate } from './restoreGate.js';
import { type RunHooks, TaskHooksSlot } from './taskSlot.js';
import { WorkPortSlot } from './workPortSlot.js';

export interface RuntimeOptions {
  log: Logger;
  /** The environment MCP stdio servers inherit an allow-listed part of (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Serve A2A at this URL instead of `a2a.listen`; null: no listener. */
  listen?: string | null;
  /** Serve /metrics at this HOST:PORT instead of `observability.metrics_addr`; null: no listener. */
  metrics?: string | null;
  /** Code tools registered by an embedding program (see createAgent). */
  codeTools?: ToolSurfaceOptions['code'];
  /** Spare workers kept warm (default `agent.warm_workers`). */
  warmWorkers?: number;
  /** Test-only crash points (see SupervisorOptions.killAt). */
  killAt?: ReadonlySet<string>;
  /** Producers started after the registered ones (an embedder's own). */
  producers?: Producer[];
  /** The embedding API's runs: asked about their own turns (agent.run's questions). */
  runs?: RunHooks;
  /** Compiles the config's sources again for a reload (cli/ passes its files, env and flags); without it, none. */
  reloadConfig?: () => Readonly<Config>;
  /** Stands in for the filesystem and cgroup readings of the pressure gate (tests). */
  pressureProbe?: PressureProbe;
  /**
   * false: pressure is measured and logged, but holds no turn (a one-shot job, whose only turn nothing else would
   * ever start: holding it would wait forever). Default true.
   */
  pressureHolds?: boolean;
}

export interface Runtime {
  /** The config in force: reads through to what the last applied reload put in place. */
  readonly config: Readonly<Config>;
  readonly store: Store;
  readonly tools: ToolSurface;
  readonly supervisor: Supervisor;
  /** The producers started, in start order. */
  readonly producers: readonly Producer[];
  /** Schedules and webhook routes: the workflow engine registers its start nodes here. */
  readonly triggers: Triggers;
  /** What the restore found: pending events replay. */
  readonly restored: { generation: number; pending: number };
  /** The bound metrics address (`HOST:PORT`), or null without a metrics listener. */
  readonly metricsAddress: string | null;
  /**
   * Reloads the config (SIGHUP, the operator's `reload`, `--watch-config`): applied for every turn launched after
   * it, or refused as a whole with the running config kept (interfaces §3.6).
   */
  reload(source: ReloadSource): ReloadReport;
  /** Resolves once a stop was asked for (a signal through cli/, or the operator's `drain` command). */
  readonly stopRequested: Promise<void>;
  /**
   * Stops the producers' intake, then drains (no new turn starts; running ones get `lifecycle.drain_timeout`);
   * resolves when drained.
   */
  requestStop(): Promise<unknown>;
  /**
   * Stops the producers' intake, drains, then stops producers, the metrics listener, the store and the tool
   * surface, newest first.
   */
  stop(): Promise<void>;
}

/** Starts the runtime; on a failure, whatever already started is stopped again before the error is thrown. */
export async function startRuntime(config: Readonly<Config>, opts: RuntimeOptions): Promise<Runtime> {
  const live = liveConfig(withListeners(config, opts));
  const cfg = live.view;
  const { log } = opts;
  const undo: Array<() => Promise<unknown> | unknown> = [];
  const restoring = restoreGate();
  const unwind = async (): Promise<void> => {
    for (let step = undo.pop(); step; step = undo.pop()) await step();
  };
  try {
    const { tools, store } = await openBase(cfg, opts, undo);
    const { supervisor, tasks, ports } = await newSupervisor(cfg, opts, { tools, store }, undo);
    const intake = { registry: null as ProducerRegistry | null };
    const drain = drainOnce(supervisor, cfg, async () => {
      await intake.registry?.stopIntake({ log });
    });
    undo.push(() => drain.run());
    if (store.leases) registerLeaseGauges(supervisor.metrics, store.leases);
    if (store.fleet) undo.push(observeNotifyLag(supervisor.metrics, store.fleet));
    const metrics = await serveMetrics(cfg.observability.metrics_addr, supervisor, log);
    if (metrics) undo.push(() => metrics.close());
    // The gate's last reading, for the triggers' shedding (producers reference §3.2 step 1).
    const pressure: PressureNow = { level: 'ok', cause: null };
    const ops = await startOperations({ live, opts, store, supervisor, tools, drain, pressure });
    undo.push(() => ops.stop());
    const triggers = buildTriggers(cfg, store, supervisor.timers, log, { metrics: supervisor.metrics, pressure });
    const parts = { store, supervisor, tasks, ports, drain, restoring, reload: ops.reload, triggers, tools };
    const started = await startProducers(cfg, opts, parts);
    intake.registry = started.registry;
    undo.push(() => started.registry.stop({ log }));
    // Replicas: a pause the operator gave the fleet holds this replica from its start (interfaces reference §4.4).
    if ((await store.fleet?.readControl()) === 'pause') supervisor.pause();
    const restored = await supervisor.restore();
    restoring.open();
    log.info('proc.ready', { instance: cfg.agent.name, ...restored, producers: started.list.map((p) => p.name) });
    const reload = ops.reload;
    return runtime({
      cfg,
      store,
      tools,
      supervisor,
      restored,
      metrics,
      drain,
      producers: started.list,
      triggers,
      unwind,
      reload,
    });
  } catch (err) {
    restoring.fail(err);
    await unwind();
    throw err;
  }
}

/** The supervisor with its task hooks, work ports and tracer (whose shutdown is the stop's last step). */
async function newSupervisor(
  cfg: Readonly<Config>,
  opts: RuntimeOptions,
  base: { tools: ToolSurface; store: Store },
  undo: Array<() => Promise<unknown> | unknown>,
) {
  const { log } = opts;
  const tasks = new TaskHooksSlot();
  if (opts.runs) tasks.watchRuns(opts.runs);
  const ports = new WorkPortSlot();
  // The SDK is imported only when tracing is on; the last step of a stop exports what is left.
  const tracer = await loadTracer(cfg.observability.otlp_endpoint);
  if (tracer) undo.unshift(() => shutDownTracer(tracer, log));
  const supervisor = new Supervisor({
    ...{ config: cfg, store: base.store, log, tools: base.tools, tasks, ports, tracer },
    ...(opts.warmWorkers === undefined ? {} : { warmWorkers: opts.warmWorkers }),
    ...(opts.killAt ? { killAt: opts.killAt } : {}),
  });
  return { supervisor, tasks, ports };
}

/** The stop's last step: exports what is left, bounded; a collector that is down is logged, never thrown. */
async function shutDownTracer(tracer: Tracer, log: Logger): Promise<void> {
  const failed = await settleTracer(tracer, 'shutdown', TRACE_SHUTDOWN_MS);
  if (failed) log.warn('trace.export_failed', { err: failed });
}

/** Starts the tool surface and opens the store, each with its undo step. */
async function openBase(
  cfg: Readonly<Config>,
  opts: RuntimeOptions,
  undo: Array<() => Promise<unknown> | unknown>,
): Promise<{ tools: ToolSurface; store: Store }> {
  const { log } = opts;
  const tools = await ToolSurface.start({
    config: cfg,
    log,
    baseEnv: opts.env ?? process.env,
    ...(opts.codeTools ? { code: opts.codeTools } : {}),
  });
  undo.push(() => tools.close());
  const store = await connectStore(cfg.store, log);
  undo.push(() => store.close());
  log.info('store.opened', { kind: store.kind, path: store.location, generation: store.generation });
  if (store.checked) log.info('store.checked', { ...store.checked });
  return { tools, store };
}

interface Drain {
  /** `reason` is what `drain.start` says (`exit` for a turn's `finish {exit: true}`, reference §14.2 step 7). */
  run(reason?: string): Promise<unknown>;
  /** True once the drain started. */
  readonly started: boolean;
  readonly requested: Promise<void>;
}

/**
 * The supervisor's drain, started at most once, after the producers' intake has stopped (nothing new is accepted
 * while the running turns finish); `requested` resolves when it starts.
 */
function drainOnce(supervisor: Supervisor, cfg: Readonly<Config>, stopIntake: () => Promise<void>): Drain {
  let draining: Promise<unknown> | null = null;
  let announce: () => void = () => {};
  const requested = new Promise<void>((resolve) => {
    announce = resolve;
  });
  return {
    requested,
    get started() {
      return draining !== null;
    },
    run: (reason = 'stop') => {
      if (draining === null) {
        draining = stopIntake().then(() => supervisor.drain(cfg.lifecycle.drain_timeout, reason));
        announce();
      }
      return draining;
    },
  };
}

/**
 * The pressure gate's watch (its first reading taken before any producer starts) and the reloader, which refuses
 * once a stop started. A reload that changes the tool surface's inputs (MCP servers, policies, tool selection)
 * re-plans it in the same step and reconnects after; a running turn keeps the tools and judging it launched with.
 */
async function startOperations(parts: {
  live: LiveConfig;
  opts: RuntimeOptions;
  store: Store;
  supervisor: Supervisor;
  tools: ToolSurface;
  drain: Drain;
  pressure: PressureNow;
}) {
  const { live, opts, store, supervisor, tools, drain, pressure: now } = parts;
  const { log } = opts;
  const cfg = live.view;
  const pressure = await watchPressure({
    probe: opts.pressureProbe ?? systemProbe(store.kind === 'sqlite' ? cfg.store.path : null),
    minFree: () => cfg.store.min_free,
    gate: (level, cause) => {
      Object.assign(now, { level: opts.pressureHolds === false ? 'ok' : level, cause });
      supervisor.setPressure(now.level, cause);
    },
    ...{ log, metrics: supervisor.metrics, now: Date.now },
  });
  const reloads = reloader({
    live,
    load: () => {
      if (!opts.reloadConfig) throw new DaemonError('config_invalid', 'reload: this instance has no config sources');
      return opts.reloadConfig();
    },
    settle: (next) => withListeners(next, opts),
    stopping: () => drain.started,
    applied: (changed) => {
      if (!changed.some((p) => TOOL_INPUTS.some((root) => p.startsWith(root)))) return;
      tools.reconcile().catch((err: unknown) => log.error('mcp.unreachable', { err: describeError(err) }));
    },
    ...{ log, metrics: supervisor.metrics },
  });
  return { reload: reloads.reload, stop: () => pressure.stop() };
}

/** Config paths the tool surface is planned from. */
/** How long a stop waits for the last spans to export (a collector that never answers must not hold it). */
const TRACE_SHUTDOWN_MS = 2_000;

const TOOL_INPUTS = ['mcp.servers', 'security.', 'agent.tools'];

interface ProducerParts {
  reload(source: ReloadSource): ReloadReport;
  triggers: Triggers;
  store: Store;
  supervisor: Supervisor;
  tasks: TaskHooksSlot;
  drain: Drain;
  ports: WorkPortSlot;
  restoring: RestoreGate;
  tools: ToolSurface;
}

/**
 * Producers start before the restore (the A2A backend must own its tasks before a replayed turn folds), but
 * their accepts wait until the restore has queued what was pending (a message accepted earlier would queue
 * twice), and their supervisor port refuses calls until then.
 */
/** A test-only crash point: SIGKILL at once, as a crash would (no drain, no flush). */
const killPointOf =
  (armed: ReadonlySet<string>) =>
  (name: string): void => {
    if (armed.has(name)) process.kill(process.pid, 'SIGKILL');
  };

async function startProducers(cfg: Readonly<Config>, opts: RuntimeOptions, parts: ProducerParts) {
  const { store, supervisor, tasks, ports, drain, restoring, reload, triggers, tools } = parts;
  const list = [...PRODUCERS.map((make) => make(cfg)).filter((p) => p !== null), ...(opts.producers ?? [])];
  const registry = new ProducerRegistry(list);
  const ctx: ProducerContext = {
    config: cfg,
    // Once restored, an accept starts in the caller's step: a conversation counts as busy from that moment.
    accept: (input: AcceptInput): Promise<Accepted> =>
      restoring.isOpen ? supervisor.accept(input) : restoring.done.then(() => supervisor.accept(input)),
    clock: Date.now,
    store,
    log: opts.log,
    supervisor: gatedPort(supervisor, restoring),
    tasks,
    requestStop: (reason) => void drain.run(reason),
    reload: () => reload('operator'),
    turns: supervisor.steering.feed,
    ports,
    restored: restoring.done,
    webhooks: triggers.webhooks,
    a2aStarts: triggers.a2aStarts,
    mcp: tools,
    schedules: triggers.schedules,
    triggerMetrics: triggers.metrics,
    metrics: supervisor.metrics,
    pressure: triggers.pressure,
    timers: supervisor.timers,
    ...(opts.killAt?.size ? { killPoint: killPointOf(opts.killAt) } : {}),
  };
  await registry.start(ctx);
  return { registry, list };
}

function runtime(parts: {
  cfg: Readonly<Config>;
  store: Store;
  tools: ToolSurface;
  supervisor: Supervisor;
  restored: { generation: number; pending: number };
  metrics: MetricsServer | null;
  drain: Drain;
  producers: Producer[];
  triggers: Triggers;
  unwind(): Promise<void>;
  reload(source: ReloadSource): ReloadReport;
}): Runtime {
  let stopped: Promise<void> | null = null;
  return {
    config: parts.cfg,
    store: parts.store,
    tools: parts.tools,
    supervisor: parts.supervisor,
    producers: parts.producers,
    triggers: parts.triggers,
    restored: parts.restored,
    metricsAddress: parts.metrics?.address ?? null,
    stopRequested: parts.drain.requested,
    reload: parts.reload,
    requestStop: () => parts.drain.run(),
    // Intake stops, running turns finish while their callers still listen; only then does everything close.
    stop: () => {
      stopped ??= parts.drain.run().then(() => parts.unwind());
      return stopped;
    },
  };
}

/** The config with the listeners the options ask for, checked as the config's own keys would be. */
export function withListeners(config: Readonly<Config>, opts: RuntimeOptions): Readonly<Config> {
  if (opts.listen === undefined && opts.metrics === undefined) return config;
  const a2a = opts.listen === undefined ? config.a2a : { ...config.a2a, listen: opts.listen };
  const observability =
    opts.metrics === undefined ? config.observability : { ...config.observability, metrics_addr: opts.metrics };
  const cfg = Object.freeze({ ...config, a2a, observability });
  const shape = a2a.listen === null ? null : listenProblem(a2a.listen);
  const problems = shape === null ? checkA2a(cfg, () => undefined) : [`a2a.listen: ${shape}`];
  if (problems.length > 0) throw new DaemonError('config_invalid', `listen: ${problems.join('; ')}`);
  return cfg;
}
