// Spare turn workers started before they are needed, so spawning and importing leave a turn's critical path.
// Each worker still runs exactly one turn: its snapshot is the first frame it reads (DESIGN.md process model).
import { type WorkerCallbacks, type WorkerEntry, WorkerHandle } from './workerHandle.js';

export class WorkerPool {
  private spares: WorkerHandle[] = [];
  private closed = false;

  /** `spareEnv`: the environment spares start with (e.g. a preload hint); fresh workers inherit ours. */
  constructor(
    private readonly entry: WorkerEntry,
    private readonly size: number,
    private readonly spareEnv?: NodeJS.ProcessEnv,
  ) {}

  /** A live spare bound to `callbacks`, or a freshly spawned worker when none is ready. */
  take(callbacks: WorkerCallbacks): WorkerHandle {
    for (let spare = this.spares.shift(); spare; spare = this.spares.shift()) {
      if (!spare.alive) continue;
      spare.attach(callbacks);
      return spare;
    }
    return new WorkerHandle(this.entry, callbacks);
  }

  /** Starts spares up to the pool size (off the caller's path: call it after a turn has started). */
  fill(): void {
    if (this.closed) return;
    this.spares = this.spares.filter((w) => w.alive);
    while (this.spares.length < this.size) {
      // A spare that dies before it is used is skipped by `take` and dropped here.
      this.spares.push(new WorkerHandle(this.entry, null, this.spareEnv));
    }
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
}
