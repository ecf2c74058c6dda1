// Everything that wakes the supervisor, as one typed union, and the handler map the reactor dispatches it through:
// a new event type without a handler is a compile error (the house pattern of protocol/frames.ts).
import type { InboxEvent } from '../domain/inbox.js';
import type { UpFrame } from '../protocol/frames.js';
import { dispatchFrame, type FrameHandlers } from '../protocol/frames.js';

/** The signals the runtime turns into supervisor events (names only: no node:* types in this module). */
export type SupervisorSignal = 'SIGTERM' | 'SIGINT' | 'SIGHUP';

/** Timers the supervisor arms: a budget wait ending, a turn's deadline backstop, a cancel's kill grace. */
export type SupervisorTimer =
  | { name: 'budget_wait' }
  | { name: 'turn_deadline'; node: number }
  | { name: 'cancel_grace'; node: number };

/** One event the reactor handles; each handler may only change in-memory state and queue store writes. */
export type SupervisorEvent =
  /** A producer's event is durable (its accept committed): it becomes a queued job. */
  | { type: 'inbox_accepted'; event: InboxEvent }
  /** At restore: the store's pending events, in inbox order, become queued jobs again. */
  | { type: 'inbox_replayed'; events: InboxEvent[] }
  /** Staging (preflight, knowledge, skills) finished a job: back in line, or answered without a turn. */
  | { type: 'staging_done'; eventId: string; answered: boolean }
  /** A frame from a child (turn worker or think child). */
  | { type: 'child_frame'; node: number; frame: UpFrame }
  /** A child process exited (after its turn_done, or without one). */
  | { type: 'child_exit'; node: number; code: number | null; signal: string | null }
  | { type: 'timer'; timer: SupervisorTimer }
  /** A cancel asked by an operator, a client or a tool. */
  | { type: 'cancel'; eventId: string; reason: string }
  | { type: 'signal'; signal: SupervisorSignal }
  /** Start no new turns; after `timeoutMs`, abandon the live ones (their events replay on the next start). */
  | { type: 'drain'; timeoutMs: number }
  | { type: 'pause' }
  | { type: 'resume' }
  /** The store took a fold's transaction: its outcome may be announced. */
  | { type: 'fold_committed'; eventId: string }
  /** The store refused a fold's transaction: it is retried at the next step. */
  | { type: 'fold_failed'; eventId: string; error: string };

export type SupervisorEventType = SupervisorEvent['type'];

/** A handler for every supervisor event type: a missing one does not compile. */
export type SupervisorHandlers = FrameHandlers<SupervisorEvent>;

/** Calls the handler for `event.type`. */
export function dispatchSupervisorEvent(handlers: SupervisorHandlers, event: SupervisorEvent): void {
  dispatchFrame(handlers, event);
}
