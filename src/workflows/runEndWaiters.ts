// Who waits for a run's end in this process (`workflow.wait`, `workflow.run {wait}`, a `wait on: run` step's
// watch): each is answered with the terminal run once the desk sees it end, or null when its signal aborts first.
import type { WorkflowRun } from '../domain/workflow.js';

type Waiter = (run: Readonly<WorkflowRun>) => void;

export class RunEndWaiters {
  readonly #waiters = new Map<string, Set<Waiter>>();

  /** Resolves with run `id` once ended (`ended` is called), or null once `signal` aborts. */
  onEnd(id: string, signal: AbortSignal): Promise<Readonly<WorkflowRun> | null> {
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(id) ?? new Set();
      const onAbort = (): void => {
        waiters.delete(done);
        resolve(null);
      };
      const done = (ended: Readonly<WorkflowRun>): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(ended);
      };
      if (signal.aborted) return resolve(null);
      signal.addEventListener('abort', onAbort, { once: true });
      waiters.add(done);
      this.#waiters.set(id, waiters);
    });
  }

  /** Answers everyone waiting on `run`. */
  ended(run: Readonly<WorkflowRun>): void {
    const waiters = this.#waiters.get(run.id);
    this.#waiters.delete(run.id);
    for (const waiter of waiters ?? []) waiter(run);
  }

  /** Answers every waiter with what `read` finds of its run now (the desk stops). */
  release(read: (id: string) => Promise<Readonly<WorkflowRun> | null>): void {
    for (const [id, waiters] of this.#waiters) for (const waiter of waiters) void read(id).then((r) => r && waiter(r));
  }
}
