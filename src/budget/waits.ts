// Conversations whose next turn the budget asked to wait (reference §10.1 `Wait`): until when, and the one timer
// that wakes the reactor when the earliest wait ends. The job itself stays in the queue, in its place.
import type { Logger } from '../obs/log.js';

interface Waiting {
  untilMs: number;
  reason: string;
}

export class BudgetWaits {
  private readonly byCtx = new Map<string, Waiting>();
  /** The last wait logged per inbox event, so a wait asked again for the same reason is not logged twice. */
  private readonly logged = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: { log: Logger; now(): number; wake(): void; onWait?: () => void }) {}

  /** The conversation's turn waits until `untilMs` (`budget.wait`). */
  defer(ctx: string, eventId: string, untilMs: number, reason: string): void {
    this.byCtx.set(ctx, { untilMs, reason });
    const key = `${untilMs}\n${reason}`;
    if (this.logged.get(eventId) !== key) {
      this.logged.set(eventId, key);
      this.deps.log.info('budget.wait', { ctx, inbox_event: eventId, until_ms: untilMs, reason });
      this.deps.onWait?.();
    }
    this.arm();
  }

  /** The event's turn started or was dropped: forget it. */
  done(eventId: string): void {
    this.logged.delete(eventId);
  }

  /** The waiting event was cancelled: its conversation is no longer held for it. */
  forget(ctx: string, eventId: string): void {
    this.logged.delete(eventId);
    this.byCtx.delete(ctx);
  }

  /** Conversations still waiting now (the dispatch gate treats them as busy); ended waits are dropped. */
  blocked(): string[] {
    const now = this.deps.now();
    for (const [ctx, w] of this.byCtx) if (w.untilMs <= now) this.byCtx.delete(ctx);
    return [...this.byCtx.keys()];
  }

  /** Room was freed (a turn settled): every waiting turn asks again at the next reactor step. */
  clear(): void {
    this.byCtx.clear();
    this.stop();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    this.stop();
    let earliest = Number.POSITIVE_INFINITY;
    for (const w of this.byCtx.values()) earliest = Math.min(earliest, w.untilMs);
    if (!Number.isFinite(earliest)) return;
    this.timer = setTimeout(() => this.deps.wake(), Math.max(0, earliest - this.deps.now()));
    this.timer.unref?.();
  }
}
