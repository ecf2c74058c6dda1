// Spare workers, started before they are needed or idle after a turn, so spawning and importing leave a turn's
// critical path. A worker reads each turn's snapshot as a spawn frame (DESIGN.md process model); spares follow
// the recent parallel demand (poolPolicy.ts). Spares are pinged like any child; one that does not answer is
// replaced, never handed a turn. Owns spare processes only; a worker with a turn belongs to the child table.
import { spawnRetryDelay } from './backoff.js';
import {
  type ChildVitals,
  classifyChild,
  type Liveness,
  type LivenessLimits,
  pingIntervalMs,
  spareUsable,
} from './liveness.js';
import {
  type AfterTurn,
  afterTurn,
  type DemandPeak,
  demandPreload,
  holdsStaleMcp,
  mayReuse,
  nextPeak,
  preloadsTurn,
  type ReuseLimits,
  spareTarget,
} from './poolPolicy.js';
import { type WorkerCallbacks, type WorkerEntry, WorkerHandle } from './workerHandle.js';

/** How the pool judges its spares: the clock, the limits, and who hears of one found unhealthy. */
export interface SpareWatch {
  now(): number;
  limits: LivenessLimits;
  /** A spare older than this with a ping still unanswered is not handed a turn. */
  answerWithinMs: number;
  onUnhealthy(pid: number, verdict: Extract<Liveness, { kind: 'unhealthy' }>): void;
  /** A spare's spawn threw (ENOMEM, EAGAIN, …); the pool tries again no sooner than `retryInMs` later. */
  onSpawnFailed?(err: unknown, retryInMs: number): void;
  /** An idle worker was stopped because it keeps MCP connections a reload made stale. */
  onStale?(pid: number): void;
}

const UNWATCHED: SpareWatch = {
  now: Date.now,
  limits: { pongTimeoutMs: Number.POSITIVE_INFINITY, progressTimeoutMs: Number.POSITIVE_INFINITY },
  answerWithinMs: Number.POSITIVE_INFINITY,
  onUnhealthy: () => {},
};

/**
 * How many spares demand may call for (`agent.max_parallel_turns`) and how long a worker lives
 * (`agent.worker_max_turns`, `agent.worker_max_rss`).
 */
export interface PoolLifetime {
  maxDemand: number;
  reuse: ReuseLimits;
  /** The MCP server specs (JSON) of the config in force: a worker keeping another one is not used again. */
  mcpInForce?(): ReadonlySet<string>;
}

const ONE_TURN: ReuseLimits = { maxTurns: 1, maxRssBytes: Number.POSITIVE_INFINITY };

/** How long a peak of parallel demand keeps its spares after the demand fell. */
const DEMAND_WINDOW_MS = 30_000;

export class WorkerPool {
  private spares: WorkerHandle[] = [];
  private peak: DemandPeak = { value: 0, at: 0 };
  /** Workers running a turn they will come back from (spawned with `reuse`): they count as spares to be. */
  private readonly lent = new Set<WorkerHandle>();
  private live = 0;
  private closed = false;
  /** When the watchdog last passed over the spares (null before its first pass). */
  private lastCheck: number | null = null;
  /** Spawns that threw in a row, and when the next fill may try (a refused spawn backs off, never throws). */
  private spawnFailures = 0;
  private retryAt = 0;
  /** Workers' stderr not yet read to its end. */
  private readonly reading = new Set<Promise<void>>();

  /**
   * `size`: spares always kept (`agent.warm_workers`). `spareEnv`: the environment spares start with (e.g. a
   * preload hint); fresh workers inherit ours. Without `lifetime` every worker serves one turn.
   */
  constructor(
    private readonly entry: WorkerEntry,
    private readonly size: number,
    private readonly spareEnv?: NodeJS.ProcessEnv,
    private readonly watch: SpareWatch = UNWATCHED,
    private readonly lifetime: PoolLifetime = { maxDemand: size, reuse: ONE_TURN },
  ) {}

  /** Whether `worker`, about to run a turn, may stay for another after it (the spawn frame's `reuse`). */
  mayReuse(worker: WorkerHandle): boolean {
    const reuse = !this.closed && mayReuse(worker.served, this.lifetime.reuse);
    if (reuse) this.lent.add(worker);
    return reuse;
  }

  /** What to do with a worker that went idle after its turn (it has served `worker.served + 1` turns then). */
  afterTurn(worker: WorkerHandle, rssBytes: number, ending: boolean): AfterTurn {
    const served = worker.served + 1;
    const staleMcp = this.stale(worker);
    return afterTurn({ served, rssBytes, ending, poolClosed: this.closed, staleMcp }, this.lifetime.reuse);
  }

  /** Whether `worker` keeps a connection to an MCP server the config in force no longer describes (a reload). */
  private stale(worker: WorkerHandle): boolean {
    if (worker.mcpSpecs.size === 0) return false;
    const inForce = this.lifetime.mcpInForce?.();
    return inForce !== undefined && holdsStaleMcp(worker.mcpSpecs, inForce);
  }

  /** Stops the spares a reload left with stale MCP connections; returns whether any was stopped. */
  private retireStale(): boolean {
    const stale = this.spares.filter((w) => w.alive && this.stale(w));
    for (const spare of stale) {
      this.watch.onStale?.(spare.pid);
      spare.kill();
    }
    this.spares = this.spares.filter((w) => !stale.includes(w));
    return stale.length > 0;
  }

  /** The child table's count of live children changed: the spares follow its recent peak. */
  noteDemand(live: number): void {
    this.live = live;
    this.peak = nextPeak(this.peak, live, this.watch.now(), DEMAND_WINDOW_MS);
  }

  /** How many spares the pool keeps now. */
  get target(): number {
    return spareTarget({ base: this.size, peak: this.peak.value, live: this.live, max: this.lifetime.maxDemand });
  }

  /**
   * Takes back a worker that finished its turn and went idle (its callbacks are already detached); it is killed
   * instead when the pool is closed or holds enough spares. Returns whether it was kept.
   */
  release(worker: WorkerHandle): boolean {
    this.lent.delete(worker);
    this.spares = this.spares.filter((w) => w.alive);
    if (this.closed || !worker.alive || this.spares.length >= this.target) {
      worker.kill();
      return false;
    }
    // Reused workers first: they are warm (imports, JIT, MCP connections), a fresh spare is not yet.
    this.spares.unshift(worker);
    return true;
  }

  /** A live, answering spare bound to `callbacks`, or a freshly spawned worker when none is ready. */
  take(callbacks: WorkerCallbacks): WorkerHandle {
    const now = this.watch.now();
    // The watchdog's pass is overdue: this supervisor's loop stalled, so a pong may sit unread in the pipe and an
    // unanswered ping says nothing about the spare (as in Children.check; the next pass judges it).
    const stalled = this.lastCheck !== null && now - this.lastCheck > pingIntervalMs(this.watch.limits);
    this.retireStale();
    for (let spare = this.spares.shift(); spare; spare = this.spares.shift()) {
      if (!spare.alive) continue;
      if (!stalled && !spareUsable(spare.vitals, now, this.watch.answerWithinMs, this.watch.limits)) {
        this.discard(spare, now);
        continue;
      }
      spare.attach(callbacks);
      return spare;
    }
    return this.track(new WorkerHandle(this.entry, callbacks, undefined, this.watch.now));
  }

  /** Starts spares up to the target (off the caller's path: call it after a turn has started). */
  fill(): void {
    if (this.closed) return;
    this.spares = this.spares.filter((w) => w.alive);
    const now = this.watch.now();
    if (now < this.retryAt) return;
    for (const w of this.lent) if (!w.alive) this.lent.delete(w);
    // A worker that will come back after its turn is a spare already on its way: spawning one for it would
    // only have to stop one of the two when it returns.
    const target = this.target - this.lent.size;
    try {
      while (this.spares.length < target) {
        // A spare that dies before it is used is skipped by `take` and dropped here.
        const busy = { index: this.spares.length, base: this.size, peak: this.peak.value, live: this.live };
        const env = preloadsTurn(busy) ? this.demandEnv() : this.spareEnv;
        this.spares.push(this.track(new WorkerHandle(this.entry, null, env, this.watch.now)));
      }
      this.spawnFailures = 0;
    } catch (err) {
      // fill runs from setImmediate, the watchdog and restore: a throw there would take the daemon down.
      this.spawnFailures++;
      const delay = spawnRetryDelay(this.spawnFailures);
      this.retryAt = now + delay;
      this.watch.onSpawnFailed?.(err, delay);
    }
  }

  /**
   * The watchdog's pass over the spares: an unhealthy one, or one a reload left with stale MCP connections, is
   * killed and replaced, the others are pinged; spares past the target (a lapsed demand peak) are stopped, the
   * longest idle first.
   */
  check(now: number): void {
    this.lastCheck = now;
    this.noteDemand(this.live);
    let replaced = this.retireStale();
    this.trim(this.spares.length - this.target);
    for (const spare of this.spares) {
      if (!spare.alive) continue;
      if (classifyChild(spare.vitals, now, this.watch.limits).kind === 'healthy') spare.ping();
      else {
        this.discard(spare, now);
        replaced = true;
      }
    }
    if (replaced) this.fill();
  }

  /** The environment of a spare past the base: it preloads a turn's modules (poolPolicy.ts demandPreload). */
  private demandEnv(): NodeJS.ProcessEnv {
    const env = this.spareEnv ?? process.env;
    return { ...env, AGENTD_WORKER_PRELOAD: demandPreload(env.AGENTD_WORKER_PRELOAD) };
  }

  /** Stops `extra` spares, the longest idle first (a fresh spare idles since its spawn, a reused one since its turn). */
  private trim(extra: number): void {
    if (extra <= 0) return;
    const idlest = [...this.spares].sort((a, b) => a.vitals.lastEventAt - b.vitals.lastEventAt).slice(0, extra);
    for (const spare of idlest) spare.kill();
    this.spares = this.spares.filter((w) => !idlest.includes(w));
  }

  /** Kills every spare; later takes still spawn fresh workers. */
  close(): void {
    this.closed = true;
    for (const spare of this.spares.splice(0)) spare.kill();
  }

  /**
   * Resolves once every worker's stderr has been read to its end, or after `boundMs`: a stop reads the last lines
   * of the workers it killed before the process exits.
   */
  async outputRead(boundMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([Promise.all(this.reading), late]);
    clearTimeout(timer);
  }

  /** Process ids of the live spares (observability and tests). */
  get sparePids(): number[] {
    return this.spares.filter((w) => w.alive).map((w) => w.pid);
  }

  /** Keeps the worker's stderr reading until it ended (outputRead). */
  private track(worker: WorkerHandle): WorkerHandle {
    const done = worker.stderrDone;
    this.reading.add(done);
    void done.then(() => this.reading.delete(done));
    return worker;
  }

  /** Drops a spare that may not run a turn, saying why. */
  private discard(spare: WorkerHandle, now: number): void {
    const verdict = classifyChild(spare.vitals, now, this.watch.limits);
    this.watch.onUnhealthy(spare.pid, verdict.kind === 'unhealthy' ? verdict : unanswered(spare.vitals, now));
    this.spares = this.spares.filter((w) => w !== spare);
    spare.kill();
  }
}

function unanswered(vitals: ChildVitals, now: number): Extract<Liveness, { kind: 'unhealthy' }> {
  const ms = now - (vitals.pingSentAt ?? now);
  return { kind: 'unhealthy', health: 'stuck', detail: `a ping unanswered for ${ms} ms when a turn needed a worker` };
}
