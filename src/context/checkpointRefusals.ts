// Which conversations' checkpoints the store refused (disk full), so a full disk costs one log line per
// conversation and its recovery, not one per reactor step, and a refused write waits out the same backoff a
// refused fold does (docs/concepts/durability.md). Pure: the clock is an argument, nothing is logged here.
import { foldRetryDelay } from '../supervisor/backoff.js';

interface Refused {
  attempts: number;
  retryAt: number;
}

export class CheckpointRefusals {
  readonly #refused = new Map<string, Refused>();

  /** The store refused `ctx`'s write at `now`; true for the first refusal of a run (the one worth logging). */
  refused(ctx: string, now: number): boolean {
    const attempts = (this.#refused.get(ctx)?.attempts ?? 0) + 1;
    this.#refused.set(ctx, { attempts, retryAt: now + foldRetryDelay(attempts) });
    return attempts === 1;
  }

  /** `ctx`'s write stuck: how many refusals it recovered from (0 when none, nothing to log). */
  committed(ctx: string): number {
    const attempts = this.#refused.get(ctx)?.attempts ?? 0;
    this.#refused.delete(ctx);
    return attempts;
  }

  /** Whether `ctx` may be written at `now`: never refused, or its backoff has passed. */
  due(ctx: string, now: number): boolean {
    return now >= (this.#refused.get(ctx)?.retryAt ?? 0);
  }
}
