// Spare workers started before they are needed, so spawning and importing leave a turn's critical path.
// Each worker still runs exactly one turn: its snapshot is the first frame it reads (DESIGN.md process model).
// Spares are pinged like any child; one that does not answer is replaced, never handed a turn.
import { type ChildVitals, classifyChild, type Liveness, type LivenessLimits, spareUsable } from './liveness.js';
import { type WorkerCallbacks, type WorkerEntry, WorkerHandle } from './workerHandle.js';

/** How the pool judges its spares: the clock, the limits, and who hears of one found unhealthy. */
export interface SpareWatch {
  now(): number;
  limits: LivenessLimits;
  /** A spare older than this with a ping still unanswered is not handed a turn. */
  answerWithinMs: number;
  onUnhealthy(pid: number, verdict: Extract<Liveness, { kind: 'unhealthy' }>): void;
}

const UNWATCHED: SpareWatch = {
  now: Date.now,
  limits: { pongTimeoutMs: Number.POSITIVE_INFINITY, progressTimeoutMs: Number.POSITIVE_INFINITY },
  answerWithinMs: Number.POSITIVE_INFINITY,
  onUnhealthy: () => {},
};

export class WorkerPool {
  private spares: WorkerHandle[] = [];
  private closed = false;

  /** `spareEnv`: the environment spares start with (e.g. a preload hint); fresh workers inherit ours. */
  constructor(
    private readonly entry: WorkerEntry,
    private readonly size: number,
    private readonly spareEnv?: NodeJS.ProcessEnv,
    private readonly watch: SpareWatch = UNWATCHED,
  ) {}

  /** A live, answering spare bound to `callbacks`, or a freshly spawned worker when none is ready. */
  take(callbacks: WorkerCallbacks): WorkerHandle {
    const now = this.watch.now();
    for (let spare = this.spares.shift(); spare; spare = this.spares.shift()) {
      if (!spare.alive) continue;
      if (!spareUsable(spare.vitals, now, this.watch.answerWithinMs, this.watch.limits)) {
        this.discard(spare, now);
        continue;
      }
      spare.attach(callbacks);
      return spare;
    }
    return new WorkerHandle(this.entry, callbacks, undefined, this.watch.now);
  }

  /** Starts spares up to the pool size (off the caller's path: call it after a turn has started). */
  fill(): void {
    if (this.closed) return;
    this.spares = this.spares.filter((w) => w.alive);
    while (this.spares.length < this.size) {
      // A spare that dies before it is used is skipped by `take` and dropped here.
      this.spares.push(new WorkerHandle(this.entry, null, this.spareEnv, this.watch.now));
    }
  }

  /** The watchdog's pass over the spares: an unhealthy one is killed and replaced, the others are pinged. */
  check(now: number): void {
    let replaced = false;
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

  /** Kills every spare; later takes still spawn fresh workers. */
  close(): void {
    this.closed = true;
    for (const spare of this.spares.splice(0)) spare.kill();
  }

  /** Process ids of the live spares (observability and tests). */
  get sparePids(): number[] {
    return this.spares.filter((w) => w.alive).map((w) => w.pid);
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
