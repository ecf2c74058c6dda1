// When the engine next looks at a run: the earliest of its steps' due waits (retry backoff, sleep) and its deadline,
// one timer per run. On the supervisor's durable timer service (producers reference §3.8) it is a stored row with
// the wall-clock due time, owned by the run, so a restart finds it and a finished or cancelled run forgets it;
// without a service (a desk alone, in tests) it is an in-memory timeout. Either way the run record holds the times.
import type { TimerRecord } from '../domain/timer.js';
import { TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { TimerService } from '../triggers/timerService.js';
import { timedWaits } from './scheduler.js';

const MAX_TIMER_MS = 2_147_483_647;

/** The timer kind of a run's next look. */
export const RUN_WAKE_KIND = 'run_wake';

/** Who owns run `id`'s timers. */
export const runTimerOwner = (id: string): string => `run:${id}`;

export class WakeTimers {
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  /** Each run's durable arming in flight: the next waits for it, so moves land in the order they were asked. */
  readonly #arming = new Map<string, Promise<void>>();
  /** Runs whose stored row fired before the restore looked (a row past due at start): it was there. */
  readonly #firedEarly = new Set<string>();
  #restored = false;

  constructor(
    private readonly clock: () => number,
    private readonly fire: (key: string) => void,
    private readonly durable?: { service: TimerService; log: Logger },
  ) {
    // A row a previous life stored fires before its run is restored: the drive is then a no-op, and the restore
    // arms the run's next look again from its record.
    durable?.service.handle(RUN_WAKE_KIND, (timer) => {
      const { run } = timer.payload as { run: string };
      if (!this.#restored) this.#firedEarly.add(run);
      this.fire(run);
      return undefined;
    });
  }

  /**
   * Whether run `key`'s row was stored at start (still armed, or fired already); null without a durable service.
   * The restore asks it of each run with a due time: false means the row was lost (deleted between lives).
   */
  async storedAtStart(key: string): Promise<boolean | null> {
    if (!this.durable) return null;
    await this.durable.service.ready;
    return this.#firedEarly.has(key) || this.durable.service.list(runTimerOwner(key)).length > 0;
  }

  /**
   * At restore: a run waiting on a due time whose stored row is gone (deleted between lives, or lost between the
   * wait's commit and its arming) logs `restore.timer.repaired` per timed step; its drive arms the row again from
   * the run record, so the wait still ends at its stored due time.
   */
  async repairAtRestore(run: Readonly<WorkflowRun>): Promise<void> {
    const waits = TERMINAL_RUN.has(run.status) ? [] : timedWaits(run);
    if (waits.length === 0 || (await this.storedAtStart(run.id)) !== false) return;
    for (const w of waits)
      this.durable?.log.warn('restore.timer.repaired', {
        run: run.id,
        workflow: run.workflow,
        step: w.step,
        wait: w.kind,
        due_ms: w.dueMs,
      });
  }

  /** The restore is over: rows firing from now on are this life's. */
  restored(): void {
    this.#restored = true;
    this.#firedEarly.clear();
  }

  /** Arms (or moves) the timer of run `key` to wall-clock `at`; null disarms it (the run ended). */
  arm(key: string, at: number | null): void {
    if (this.durable) {
      this.#chainDurable(this.durable, key, at);
      return;
    }
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

  /** Runs the arming after the run's previous one; a store error (a lost database) is logged, never thrown. */
  #chainDurable(durable: { service: TimerService; log: Logger }, key: string, at: number | null): void {
    const before = this.#arming.get(key) ?? Promise.resolve();
    const next = before
      .then(() => this.#armDurable(durable, key, at))
      .catch((err: unknown) =>
        durable.log.error('timer.arm.fail', { owner: runTimerOwner(key), err: describeError(err) }),
      );
    this.#arming.set(key, next);
    void next.finally(() => {
      if (this.#arming.get(key) === next) this.#arming.delete(key);
    });
  }

  /**
   * One row per run and due time: moving it deletes the old row and stores the new one, so the row a firing
   * settles is never the one the drive it caused armed next.
   */
  async #armDurable(at: { service: TimerService }, key: string, due: number | null): Promise<void> {
    const { service } = at;
    await service.ready;
    const owner = runTimerOwner(key);
    const held = service.list(owner);
    // Every idle pass of a run with nothing due asks for null: the store is written only when a row is armed.
    if (due === null) {
      if (held.length > 0) await service.cancelOwner(owner);
      return;
    }
    const id = `${owner}@${due}`;
    for (const old of held) if (old.id !== id) await service.cancel(old.id);
    if (held.some((t) => t.id === id)) return;
    const row: TimerRecord = { id, owner, kind: RUN_WAKE_KIND, due, payload: { run: key } };
    await service.arm(row);
  }

  /** Disarms every in-memory timer (a stop); stored rows stay for the next life. */
  clear(): void {
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
