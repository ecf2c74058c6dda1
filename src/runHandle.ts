// One run of the embedding API: its events kept in order (every iterator of `events` replays them from the
// first), and its result once the turn folded. No I/O: agent.ts feeds it.
import type { RunEvent, RunResult } from './domain/runEvent.js';

/** What `agent.run()` returns. */
export interface RunHandle {
  /** The run's id (its inbox event's ULID); `cancel()` and the events name it. */
  readonly id: string;
  /** Resolves once the turn has folded back (durably); rejects only when the message was never accepted. */
  readonly result: Promise<RunResult>;
  /** The run's events in order, `accepted` first and `done` last; each iteration starts from the first event. */
  readonly events: AsyncIterable<RunEvent>;
  /** Cancels the run: a running turn's worker is killed, a queued one never starts. */
  cancel(): void;
}

/** The event log of one run, and the iterators reading it. */
export class RunEvents implements AsyncIterable<RunEvent> {
  private readonly log: RunEvent[] = [];
  private readonly waiters = new Set<() => void>();
  private ended = false;

  push(event: RunEvent): void {
    if (this.ended) return;
    this.log.push(event);
    if (event.type === 'done') this.ended = true;
    for (const wake of [...this.waiters]) wake();
    this.waiters.clear();
  }

  /** Ends the log where it is (a run whose result rejected): iterators finish after what they have read. */
  end(): void {
    this.ended = true;
    for (const wake of [...this.waiters]) wake();
    this.waiters.clear();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    let next = 0;
    for (;;) {
      const event = this.log[next];
      if (event !== undefined) {
        next++;
        yield event;
        if (event.type === 'done') return;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((wake) => this.waiters.add(wake));
    }
  }
}
