// The reactor's loop: every state change schedules one step (a microtask, coalesced); after each step the
// registered watches are re-checked and whoever waits for "the next step" wakes. The step itself is the
// supervisor's; a step that throws is logged and the loop goes on.
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';

export class Reactor {
  /** Checks re-run after every step (the await tool's conditions). */
  readonly watchers = new Set<() => void>();
  private readonly waiters: Array<() => void> = [];
  private scheduled = false;

  constructor(
    private readonly step: () => void,
    private readonly log: Logger,
  ) {}

  /** Runs one step soon (once, however often it is asked before it runs). */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      try {
        this.step();
      } catch (err) {
        this.log.error('loop.error', { err: `reactor tick: ${describeError(err)}` });
      }
      for (const watcher of [...this.watchers]) watcher();
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Resolves after the next step. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves once `done()` holds after a step (at once when it already does). */
  async until(done: () => boolean): Promise<void> {
    while (!done()) await this.next();
  }
}
