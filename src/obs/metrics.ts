// The instance's metrics on prom-client: agentd's counters and gauges (names kept), latency histograms, and the
// process and Node metrics every Node service exports (CPU, memory, event-loop lag, GC, heap). No I/O.
import { createRequire } from 'node:module';
import type * as Prom from 'prom-client';

// Only the parts an instance uses, by their files: prom-client's index also loads the cluster aggregator, the
// push gateway client and the default metrics with @opentelemetry/api (80 modules, 1.5 MB of heap) for every
// daemon. The default metrics load at the first scrape (processMetrics).
const load = createRequire(import.meta.url);
const Registry = load('prom-client/lib/registry') as typeof Prom.Registry;
type Registry = Prom.Registry;
const PromCounter = load('prom-client/lib/counter') as typeof Prom.Counter;
type PromCounter<T extends string> = Prom.Counter<T>;
const PromGauge = load('prom-client/lib/gauge') as typeof Prom.Gauge;
const PromHistogram = load('prom-client/lib/histogram') as typeof Prom.Histogram;
type PromHistogram<T extends string> = Prom.Histogram<T>;

type Labels = Readonly<Record<string, string>>;

/** Upper bounds (seconds) of the store latency buckets. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Upper bounds (seconds) of the model, tool and turn latency buckets: calls take from milliseconds to minutes. */
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Store ports whose call is one durable commit: the accept, the fold, a conversation checkpoint. */
const COMMIT_OPS = new Set(['inbox.accept', 'inbox.complete', 'conversations.commit']);

/** The process and Node metrics, registered once per process (each agent's registry is merged with it). */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    const collectDefaultMetrics = load('prom-client/lib/defaultMetrics') as typeof Prom.collectDefaultMetrics;
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** A counter with a fixed set of label names; `inc` adds. */
export class Counter {
  private readonly metric: PromCounter<string>;

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[] = []) {
    this.metric = new PromCounter({ name, help, labelNames, registers: [registry] });
  }

  inc(labels: Labels = {}, by = 1): void {
    if (by > 0) this.metric.inc({ ...labels }, by);
  }
}

/** A histogram of seconds by label set. */
export class Histogram {
  private readonly metric: PromHistogram<string>;

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[], buckets: number[]) {
    this.metric = new PromHistogram({ name, help, labelNames, buckets, registers: [registry] });
  }

  observe(labels: Labels, seconds: number): void {
    this.metric.observe({ ...labels }, seconds);
  }
}

/** The metrics an instance keeps. Gauges are registered by whoever owns the value (the supervisor). */
export class Metrics {
  private readonly registry = new Registry();
  readonly turns = this.labelled('agentd_turns_total', 'Turns that ran, by final status.', ['status']);
  readonly tokens = this.labelled('agentd_tokens_total', 'Model tokens reported, by direction (in, out) and kind.', [
    'direction',
    'kind',
  ]);
  readonly compactions = this.labelled('agentd_compactions_total', 'Conversation compactions, by kind.', ['kind']);
  readonly budgetWaits = this.labelled('agentd_budget_waits_total', 'Turns the budget asked to wait.', []);
  readonly budgetRefusals = this.labelled('agentd_budget_refusals_total', 'Turns the budget did not let run.', []);
  readonly configReloads = this.labelled(
    'agentd_config_reloads_total',
    'Config reloads, by result (applied, rejected, other).',
    ['result'],
  );
  private readonly storeOps = this.histogram(
    'agentd_store_op_seconds',
    'Store operation latency, by operation.',
    STORE_BUCKETS,
  );
  private readonly storeCommits = this.histogram(
    'agentd_store_commit_seconds',
    'Store commit latency (accept, fold, conversation checkpoint), by operation.',
    STORE_BUCKETS,
  );
  /** Turn duration, from the worker's spawn to its result, by final status. */
  readonly turnDuration = new Histogram(
    this.registry,
    'agentd_turn_duration_seconds',
    'Turn duration, by status.',
    ['status'],
    CALL_BUCKETS,
  );
  /** Model call latency as the supervisor sees it (the worker's call start to its answer). */
  readonly modelLatency = new Histogram(
    this.registry,
    'agentd_model_call_seconds',
    'Model call latency.',
    [],
    CALL_BUCKETS,
  );
  /** Tool call latency measured by the worker, by tool. */
  readonly toolLatency = new Histogram(
    this.registry,
    'agentd_tool_call_seconds',
    'Tool call latency, by tool.',
    ['tool'],
    CALL_BUCKETS,
  );

  /** Replicas: from another replica's NOTIFY to this one hearing it, by channel (inbox, cancel). */
  readonly notifyLag = new Histogram(
    this.registry,
    'agentd_notify_lag_seconds',
    'Replicas: NOTIFY lag from the sender to this replica, by channel.',
    ['channel'],
    STORE_BUCKETS,
  );

  /** The store latency observer: every port call, and commits apart. */
  readonly storeLatency = {
    observe: (labels: { op: string }, seconds: number): void => {
      this.storeOps.observe(labels, seconds);
      if (COMMIT_OPS.has(labels.op)) this.storeCommits.observe(labels, seconds);
    },
  };

  /** A counter kept by the part that owns what it counts (the subagent desk's spawns and refusals). */
  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.labelled(name, help, labelNames);
  }

  /** A gauge read when scraped; registering a name again replaces the earlier reader. */
  gauge(name: string, help: string, read: () => number): void {
    if (this.registry.getSingleMetric(name)) this.registry.removeSingleMetric(name);
    new PromGauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** The Prometheus text exposition: this instance's metrics, then the process's. */
  async render(): Promise<string> {
    return Registry.merge([this.registry, processMetrics()]).metrics();
  }

  /** The exposition's content type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  private labelled(name: string, help: string, labelNames: readonly string[]): Counter {
    return new Counter(this.registry, name, help, labelNames);
  }

  private histogram(name: string, help: string, buckets: number[]): Histogram {
    return new Histogram(this.registry, name, help, ['op'], buckets);
  }
}
