// A fake clock for the timer service (triggers/timerService.ts Clock): time moves only when a test advances it,
// and each timer due on the way runs at its own time, with the promises it starts settled before the next.
import type { Clock } from '../../src/triggers/timerService.js';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #pending = new Map<number, Pending>();

  constructor(startMs: number) {
    this.#now = startMs;
  }

  now = (): number => this.#now;

  setTimeout = (fn: () => void, ms: number): unknown => {
    const seq = ++this.#seq;
    this.#pending.set(seq, { at: this.#now + Math.max(0, ms), seq, fn });
    return seq;
  };

  clearTimeout = (handle: unknown): void => {
    this.#pending.delete(handle as number);
  };

  /** Moves time to `targetMs`, running every timer due on the way at its due time, oldest first. */
  async advanceTo(targetMs: number): Promise<void> {
    await settle();
    for (;;) {
      const next = [...this.#pending.values()].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (next === undefined || next.at > targetMs) break;
      this.#pending.delete(next.seq);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await settle();
    }
    this.#now = Math.max(this.#now, targetMs);
    await settle();
  }

  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.#now + ms);
  }
}

/** Lets every promise chain started so far run to its end (store calls resolve within a few turns). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}
