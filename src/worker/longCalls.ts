// The long calls a worker is inside (model, tool, budget wait, startup), reported on each `pong` so the
// supervisor's progress timeout spares a turn that is waiting, not wedged (reference §1.6). Decides nothing.
import type { BusyKind } from '../protocol/frames.js';

export class LongCalls {
  private readonly inFlight = new Map<BusyKind, number>();

  /** Runs `call` counted as inside a long call of `kind` until it settles. */
  async during<T>(kind: BusyKind, call: () => Promise<T>): Promise<T> {
    this.inFlight.set(kind, (this.inFlight.get(kind) ?? 0) + 1);
    try {
      return await call();
    } finally {
      const left = (this.inFlight.get(kind) ?? 1) - 1;
      if (left > 0) this.inFlight.set(kind, left);
      else this.inFlight.delete(kind);
    }
  }

  /** One kind of call in flight (the first started still running), or undefined between calls. */
  get current(): BusyKind | undefined {
    return this.inFlight.keys().next().value;
  }
}
