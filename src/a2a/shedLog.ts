// One `a2a.connection.shed` line per burst of connections closed for the cap or the head deadline: a flood of
// thousands must not become thousands of lines. Counts per reason, written at most once per window.
import type { Logger } from '../obs/log.js';

const WINDOW_MS = 5_000;

type Reason = 'evicted' | 'refused' | 'header_timeout';

export class ShedLog {
  private readonly pending = new Map<Reason, number>();
  private timer: NodeJS.Timeout | null = null;
  private open = 0;

  constructor(private readonly log: Logger) {}

  /** Counts one closed connection; the first of a window is written at once, the rest when the window ends. */
  count(reason: Reason, open: number): void {
    this.open = open;
    if (this.timer === null) {
      this.log.warn('a2a.connection.shed', { reason, shed: 1, open });
      this.timer = setTimeout(() => this.flush(), WINDOW_MS);
      this.timer.unref();
      return;
    }
    this.pending.set(reason, (this.pending.get(reason) ?? 0) + 1);
  }

  private flush(): void {
    this.timer = null;
    for (const [reason, shed] of this.pending) this.log.warn('a2a.connection.shed', { reason, shed, open: this.open });
    this.pending.clear();
  }
}
