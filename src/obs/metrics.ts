// The instance's metrics and their Prometheus text exposition (format 0.0.4), written here rather than taken from
// prom-client: a few counters, gauges read at scrape time and one histogram need no dependency. No I/O.

type Labels = Readonly<Record<string, string>>;

/** Upper bounds (seconds) of the store latency histogram's buckets. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  render(): string[];
}

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(
    ([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function keyOf(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort());
}

/** A counter with labels; `inc` adds. */
export class Counter implements Family {
  readonly type = 'counter';
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    if (by <= 0) return;
    const key = keyOf(labels);
    const entry = this.values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.values.set(key, entry);
  }

  get(labels: Labels = {}): number {
    return this.values.get(keyOf(labels))?.value ?? 0;
  }

  render(): string[] {
    return [...this.values.values()].map((e) => `${this.name}${labelText(e.labels)} ${e.value}`);
  }
}

/** A gauge read when scraped. */
export class Gauge implements Family {
  readonly type = 'gauge';
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => number,
  ) {}

  render(): string[] {
    return [`${this.name} ${this.read()}`];
  }
}

/** A histogram of seconds by label set, with cumulative buckets. */
export class Histogram implements Family {
  readonly type = 'histogram';
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[] = LATENCY_BUCKETS,
  ) {}

  observe(labels: Labels, seconds: number): void {
    const key = keyOf(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    const { counts } = s;
    this.buckets.forEach((le, i) => {
      if (seconds <= le) counts[i] = (counts[i] ?? 0) + 1;
    });
    s.sum += seconds;
    s.count++;
  }

  render(): string[] {
    const lines: string[] = [];
    for (const s of this.series.values()) {
      this.buckets.forEach((le, i) => {
        lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: String(le) })} ${s.counts[i]}`);
      });
      lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${this.name}_sum${labelText(s.labels)} ${s.sum}`);
      lines.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return lines;
  }
}

/** The metrics an instance keeps. Gauges are registered by whoever owns the value (the supervisor). */
export class Metrics {
  readonly turns = new Counter('agentd_turns_total', 'Turns that ran, by final status.');
  readonly tokens = new Counter('agentd_tokens_total', 'Model tokens reported, by direction (in, out) and kind.');
  readonly compactions = new Counter('agentd_compactions_total', 'Conversation compactions, by kind.');
  readonly budgetWaits = new Counter('agentd_budget_waits_total', 'Turns the budget asked to wait.');
  readonly budgetRefusals = new Counter('agentd_budget_refusals_total', 'Turns the budget did not let run.');
  readonly storeLatency = new Histogram('agentd_store_op_seconds', 'Store operation latency, by operation.');
  readonly configReloads = new Counter(
    'agentd_config_reloads_total',
    'Config reloads, by result (applied, rejected, other).',
  );
  private readonly families: Family[] = [
    this.turns,
    this.tokens,
    this.compactions,
    this.budgetWaits,
    this.budgetRefusals,
    this.storeLatency,
    this.configReloads,
  ];

  /** A counter kept by the part that owns what it counts (the subagent desk's spawns and refusals). */
  counter(name: string, help: string): Counter {
    const counter = new Counter(name, help);
    this.families.push(counter);
    return counter;
  }

  gauge(name: string, help: string, read: () => number): void {
    this.families.push(new Gauge(name, help, read));
  }

  /** The Prometheus text exposition of every family. */
  render(): string {
    const out: string[] = [];
    for (const f of this.families) out.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`, ...f.render());
    return `${out.join('\n')}\n`;
  }
}
