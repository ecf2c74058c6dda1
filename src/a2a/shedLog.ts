// One `a2a.connection.shed` line per burst of connections closed for the cap or the head deadline: a flood of
// thousands must not become thousands of lines. Counts per reason; at most one line per reason every window.
import type { Logger } from '../obs/log.js';

const WINDOW_MS = 5_000;

type Reason = 'evicted' | 'refused' | 'header_timeout';

export class ShedLog {
  private readonly pending = new Map<Reason, number>();
  private timer: NodeJS.Timeout | null = null;
  private open = 0;

  constructor(
    private readonly log: Logger,
    private readonly windowMs = WINDOW_MS,
  ) {}

  /**
   * Counts one closed connection. With no window running it is written at once and a window starts; within a
   * window it is counted and written when the window ends, which starts the next window (so a line written at a
   * window's end is never followed by another within the same window length).
   */
  count(reason: Reason, open: number): void {
    this.open = open;
    if (this.timer === null) {
      this.log.warn('a2a.connection.shed', { reason, shed: 1, open });
      this.arm();
      return;
    }
    this.pending.set(reason, (this.pending.get(reason) ?? 0) + 1);
  }

  private arm(): void {
    this.timer = setTimeout(() => this.flush(), this.windowMs);
    this.timer.unref();
  }

  private flush(): void {
    this.timer = null;
    if (this.pending.size === 0) return;
    for (const [reason, shed] of this.pending) this.log.warn('a2a.connection.shed', { reason, shed, open: this.open });
    this.pending.clear();
    this.arm();
  }
}
