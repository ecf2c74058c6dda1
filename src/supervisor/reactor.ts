// The reactor's loop: every state change schedules one step (a microtask, coalesced); after each step the
// registered watches are re-checked and whoever waits for "the next step" wakes. The step itself is the
// supervisor's; a step that throws is logged and the loop goes on. Also the one typed union of events it handles,
// dispatched through a handler map (a new event type without a handler is a compile error).
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { dispatchFrame, type FrameHandlers, type TurnResult } from '../protocol/frames.js';
import type { EndReason } from './children.js';
import type { LiveTurn } from './turnWorkers.js';

export class Reactor {
  /** Checks re-run after every step (the await tool's conditions). */
  readonly watchers = new Set<() => void>();
  private readonly waiters: Array<() => void> = [];
  private scheduled = false;

  constructor(
    private readonly step: () => void,
    private readonly log: Logger,
  ) {}

  /** Runs one step soon (once, however often it is asked before it runs). */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      try {
        this.step();
      } catch (err) {
        this.log.error('loop.error', { err: `reactor tick: ${describeError(err)}` });
      }
      for (const watcher of [...this.watchers]) watcher();
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Resolves after the next step. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves once `done()` holds after a step (at once when it already does). */
  async until(done: () => boolean): Promise<void> {
    while (!done()) await this.next();
  }

  /** Like `until`, bounded: resolves true when `timeoutMs` passed first. */
  async untilWithin(done: () => boolean, timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((r) => {
      timer = setTimeout(() => r(true), timeoutMs);
    });
    const timedOut = await Promise.race([this.until(done).then(() => false), late]);
    clearTimeout(timer);
    return timedOut;
  }
}

/** One event the reactor handles; each handler may only change in-memory state and queue store writes. */
export type SupervisorEvent =
  /** A producer's event is durable (its accept committed): it becomes a queued job. */
  | { type: 'inbox_accepted'; event: InboxEvent }
  /** At restore: the store's pending events, in inbox order, become queued jobs again. */
  | { type: 'inbox_replayed'; events: InboxEvent[] }
  /** Staging (preflight, knowledge, skills) finished a job: on to the gate, or answered (`reply`) without a turn. */
  | { type: 'staging_done'; eventId: string; reply: string | null }
  /** A turn worker's turn_done. */
  | { type: 'turn_done'; turn: LiveTurn; result: TurnResult }
  /** A turn worker exited (after its turn_done, or without one): `ended` says why the supervisor ended it. */
  | {
      type: 'worker_exit';
      turn: LiveTurn;
      ended: EndReason | null;
      code: number | null;
      signal: string | null;
      /** The errno name when the process never started (EMFILE, …). */
      spawnError?: string | null;
    }
  /** A dispatch reservation settled: turns the budget deferred ask again. */
  | { type: 'budget_room' }
  /** A cancel asked by an operator, a client or a tool. */
  | { type: 'cancel'; eventId: string; reason: string }
  /** A drain gave up waiting: live work is abandoned (its events replay on the next start). */
  | { type: 'drain_abandon' }
  | { type: 'pause' }
  | { type: 'resume' }
  /** The store took a fold's transaction: its outcome may be announced. */
  | { type: 'fold_committed'; eventId: string; outcome: InboxOutcome; result?: TurnResult }
  /** The store refused a fold's transaction: it is retried while its job folds (not when the lease fence did). */
  | { type: 'fold_failed'; eventId: string; fencedCtx?: string | undefined }
  /** Replicas: another replica holds the conversation now (interfaces reference §4.4). */
  | { type: 'lease_lost'; ctx: string };

export type SupervisorEventType = SupervisorEvent['type'];

/** A handler for every supervisor event type: a missing one does not compile. */
export type SupervisorHandlers = FrameHandlers<SupervisorEvent>;

/** Calls the handler for `event.type`. */
export function dispatchSupervisorEvent(handlers: SupervisorHandlers, event: SupervisorEvent): void {
  dispatchFrame(handlers, event);
}
