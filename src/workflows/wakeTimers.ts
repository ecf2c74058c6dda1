// The engine's timing, kept behind this one small module so a general timer service can replace it: one timer per
// key, armed for a wall-clock due time read from the run record (so a restart re-arms from the store).

const MAX_TIMER_MS = 2_147_483_647;

export class WakeTimers {
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly clock: () => number,
    private readonly fire: (key: string) => void,
  ) {}

  /** Arms (or moves) the timer of `key` to wall-clock `at`; null disarms it. */
  arm(key: string, at: number | null): void {
    const held = this.#timers.get(key);
    if (held && held.at === at) return;
    if (held) clearTimeout(held.timer);
    this.#timers.delete(key);
    if (at === null) return;
    const delay = Math.min(Math.max(0, at - this.clock()), MAX_TIMER_MS);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.fire(key);
    }, delay);
    timer.unref?.();
    this.#timers.set(key, { at, timer });
  }

  /** Disarms every timer. */
  clear(): void {
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
