// The budget's waits as resources (reference §10.1 `Wait`): the one timer that wakes the reactor when the earliest
// wait ends, and the log line of each wait. Which job waits until when is the job table's (`budget_wait`).
import type { Logger } from '../obs/log.js';

export class BudgetWaits {
  /** The last wait logged per inbox event, so a wait asked again for the same reason is not logged twice. */
  private readonly logged = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly deps: {
      log: Logger;
      now(): number;
      wake(): void;
      onWait?: () => void;
      /** Room was freed (a reservation settled): every waiting turn asks again. */
      onRoom?: () => void;
    },
  ) {}

  /** The event's turn waits until `untilMs` (`budget.wait`, logged once per wait). */
  defer(ctx: string, eventId: string, untilMs: number, reason: string): void {
    const key = `${untilMs}\n${reason}`;
    if (this.logged.get(eventId) === key) return;
    this.logged.set(eventId, key);
    this.deps.log.info('budget.wait', { ctx, inbox_event: eventId, until_ms: untilMs, reason });
    this.deps.onWait?.();
  }

  /** The event's turn started or was dropped: forget it. */
  done(eventId: string): void {
    this.logged.delete(eventId);
  }

  /** Keeps one timer, for the earliest wait still ahead (`null`: none). */
  armFor(untilMs: number | null): void {
    if (untilMs === this.armedFor && this.timer) return;
    this.stop();
    if (untilMs === null) return;
    this.armedFor = untilMs;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.armedFor = Number.POSITIVE_INFINITY;
        this.deps.wake();
      },
      Math.max(0, untilMs - this.deps.now()),
    );
    this.timer.unref?.();
  }

  /** Room was freed (a turn settled): every waiting turn asks again at the next reactor step. */
  clear(): void {
    this.deps.onRoom?.();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }
}
