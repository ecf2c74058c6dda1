// The durable timer service (producers reference §3.8), owned by the supervisor: every timer is a store row with
// its owner, kind, wall-clock due time and payload; rows are re-armed from the store at start (never from "now"),
// and a firing's row is deleted (and its next timer armed) only after the firing's handler has done its work.
// It must not decide what a firing means: handlers by kind, or the waiter that armed it, do.
import type { TimerRecord } from '../domain/timer.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { TimersPort } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import { compareTimers, planTimers } from './timerPlan.js';

/** How long a firing whose handler failed waits before it is tried again. */
const FIRE_RETRY_MS = 5_000;

/** The clock and timer primitives the service runs on (tests inject a fake one). */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: Date.now,
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Fires a timer of one kind; resolves with the timer it leads to (armed in the same commit), nothing, or `keep`:
 * not now (its owner is not registered yet) — the row stays stored, unarmed, until `rearm` hands it back.
 */
export type TimerHandler = (timer: TimerRecord) => Promise<TimerOutcome> | TimerOutcome;
export type TimerOutcome = TimerRecord | undefined | 'keep';

export interface TimerServiceDeps {
  timers: TimersPort;
  log: Logger;
  clock?: Clock;
}

/** A timer to arm: its id is generated unless given. */
export type TimerSpec = Omit<TimerRecord, 'id'> & { id?: string };

export class TimerService {
  readonly #deps: TimerServiceDeps;
  readonly #clock: Clock;
  readonly #armed = new Map<string, TimerRecord>();
  /** In-memory waiters of timers armed in this life (a turn's sleep): fired instead of a kind's handler. */
  readonly #waiters = new Map<string, (timer: TimerRecord) => void>();
  readonly #handlers = new Map<string, TimerHandler>();
  /** Kinds whose owners never survive a restart (a turn): their rows from a previous life are dropped at start. */
  readonly #ephemeral = new Set<string>();
  readonly #firing = new Set<string>();
  #wake: unknown = null;
  #pumping: Promise<void> | null = null;
  #started = false;
  #stopped = false;
  #markReady: () => void = () => {};
  /** Resolves once the stored timers are loaded: arming by a stable id before that would overwrite a stored row. */
  readonly ready = new Promise<void>((resolve) => {
    this.#markReady = resolve;
  });

  constructor(deps: TimerServiceDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? systemClock;
  }

  now(): number {
    return this.#clock.now();
  }

  /** Registers the handler of `kind`; `ephemeral` kinds are dropped at start (what armed them is gone). */
  handle(kind: string, handler: TimerHandler | null, opts: { ephemeral?: boolean } = {}): void {
    if (handler) this.#handlers.set(kind, handler);
    if (opts.ephemeral) this.#ephemeral.add(kind);
    if (this.#started) this.#schedule();
  }

  /** Loads every stored timer and arms it at its stored due time (a past one fires at once). Idempotent. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    for (const timer of await this.#deps.timers.list()) {
      if (this.#ephemeral.has(timer.kind)) {
        this.#deps.log.info('timer.dropped', {
          id: timer.id,
          owner: timer.owner,
          kind: timer.kind,
          reason: 'owner gone',
        });
        await this.#deps.timers.settle(timer.id);
      } else this.#armed.set(timer.id, timer);
    }
    this.#markReady();
    this.#schedule();
  }

  /** Arms again a stored timer its handler kept (`keep`), at its stored due time. */
  rearm(timer: TimerRecord): void {
    this.#armed.set(timer.id, timer);
    this.#schedule();
  }

  /** Stops firing (rows stay for the next start); waits for a firing in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#wake !== null) this.#clock.clearTimeout(this.#wake);
    this.#wake = null;
    await this.#pumping;
  }

  /**
   * Writes the timer durably, then arms it; `wake` (in memory) fires it instead of its kind's handler. Resolves
   * with the record once it is stored.
   */
  async arm(spec: TimerSpec, wake?: (timer: TimerRecord) => void): Promise<TimerRecord> {
    const timer: TimerRecord = { ...spec, id: spec.id ?? newUlid(this.now()) };
    this.#armed.set(timer.id, timer);
    if (wake) this.#waiters.set(timer.id, wake);
    const stored = this.#deps.timers.arm(timer);
    this.#deps.log.debug('timer.armed', { id: timer.id, owner: timer.owner, kind: timer.kind, due: timer.due });
    this.#schedule();
    await stored;
    return timer;
  }

  /** Deletes timer `id`, armed and stored (a waiter moved its due time). */
  async cancel(id: string): Promise<void> {
    this.#armed.delete(id);
    this.#waiters.delete(id);
    this.#schedule();
    await this.#deps.timers.settle(id);
  }

  /** Deletes every timer of `owner`, stored and armed: what armed them has ended. */
  async cancelOwner(owner: string): Promise<number> {
    const mine = [...this.#armed.values()].filter((t) => t.owner === owner);
    for (const t of mine) {
      this.#armed.delete(t.id);
      this.#waiters.delete(t.id);
    }
    const deleted = await this.#deps.timers.cancelOwner(owner);
    if (mine.length > 0 || deleted > 0)
      this.#deps.log.debug('timer.cancelled', { owner, timers: Math.max(mine.length, deleted) });
    this.#schedule();
    return deleted;
  }

  /** The armed timers, earliest first (status). */
  list(owner?: string): TimerRecord[] {
    const all = [...this.#armed.values()].filter((t) => owner === undefined || t.owner === owner);
    return all.sort(compareTimers);
  }

  #schedule(): void {
    if (!this.#started || this.#stopped) return;
    if (this.#wake !== null) this.#clock.clearTimeout(this.#wake);
    this.#wake = null;
    if (this.#pumping) return;
    const plan = planTimers(this.#armed.values(), this.now(), this.#firing);
    if (plan.due.length > 0)
      this.#pumping = this.#pump().finally(() => {
        this.#pumping = null;
        this.#schedule();
      });
    else if (plan.wakeInMs !== null) this.#wake = this.#clock.setTimeout(() => this.#schedule(), plan.wakeInMs);
  }

  /** Fires what is due, one after another, earliest first, until nothing is due. */
  async #pump(): Promise<void> {
    for (;;) {
      if (this.#stopped) return;
      const [timer] = planTimers(this.#armed.values(), this.now(), this.#firing).due;
      if (timer === undefined) return;
      await this.#fire(timer);
    }
  }

  async #fire(timer: TimerRecord): Promise<void> {
    const { log, timers } = this.#deps;
    this.#firing.add(timer.id);
    try {
      const waiter = this.#waiters.get(timer.id);
      const handler = this.#handlers.get(timer.kind);
      let next: TimerOutcome;
      if (waiter) waiter(timer);
      else if (handler) next = await handler(timer);
      else log.warn('timer.unknown_owner', { id: timer.id, owner: timer.owner, kind: timer.kind });
      if (next === 'keep') {
        this.#armed.delete(timer.id);
        return;
      }
      // Cancelled while its handler ran: what armed it is gone, so is what it leads to.
      if (!this.#armed.has(timer.id)) next = undefined;
      this.#armed.delete(timer.id);
      this.#waiters.delete(timer.id);
      if (next) this.#armed.set(next.id, next);
      await timers.settle(timer.id, next);
      log.info('timer.fired', {
        id: timer.id,
        owner: timer.owner,
        kind: timer.kind,
        due: timer.due,
        late_ms: this.now() - timer.due,
      });
    } catch (err) {
      // The row stays (a restart fires it again; firings carry keys for that); this life retries after a pause.
      this.#armed.set(timer.id, { ...timer, due: this.now() + FIRE_RETRY_MS });
      log.error('timer.fire.fail', { id: timer.id, owner: timer.owner, kind: timer.kind, err: describeError(err) });
    } finally {
      this.#firing.delete(timer.id);
    }
  }
}
