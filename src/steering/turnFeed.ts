// The read-only feed the internal producers react to: a fold that committed, a conversation that may be at an idle
// boundary, and what waits or runs for a conversation now. The supervisor publishes; producers only read and accept.
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import type { TurnResult } from '../protocol/frames.js';

/** A fold that committed: its event, its outcome and the worker's result. */
export interface CommittedTurn {
  event: InboxEvent;
  outcome: InboxOutcome;
  /** Absent when the fold was retried after a store error (only its outcome survived). */
  result?: TurnResult;
}

/** What holds a conversation's next turn back now. */
export interface Activity {
  /** A message for it waits (queued, in staging, or on its way to the store). */
  queued: boolean;
  /** A turn of it runs and has not folded back yet. */
  live: boolean;
  paused: boolean;
  draining: boolean;
}

/** What a producer may observe of the turns. */
export interface TurnFeed {
  /** After each fold's commit, in commit order; returns the unsubscribe function. */
  onCommitted(listener: (turn: CommittedTurn) => void): () => void;
  /** `ctx` may be at an idle boundary: restored, resumed, or its goal was set from outside a turn. */
  onIdle(listener: (ctx: string) => void): () => void;
  activity(ctx: string): Activity;
}

/** The publishing side; a listener that throws is reported and the others still hear the fact. */
export class TurnFacts implements TurnFeed {
  private readonly committedListeners = new Set<(turn: CommittedTurn) => void>();
  private readonly idleListeners = new Set<(ctx: string) => void>();

  constructor(
    private readonly read: (ctx: string) => Activity,
    private readonly failed: (err: unknown) => void,
  ) {}

  onCommitted(listener: (turn: CommittedTurn) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  onIdle(listener: (ctx: string) => void): () => void {
    this.idleListeners.add(listener);
    return () => this.idleListeners.delete(listener);
  }

  activity(ctx: string): Activity {
    return this.read(ctx);
  }

  committed(turn: CommittedTurn): void {
    this.publish(this.committedListeners, turn);
  }

  idle(ctx: string): void {
    this.publish(this.idleListeners, ctx);
  }

  private publish<T>(listeners: ReadonlySet<(fact: T) => void>, fact: T): void {
    for (const listener of [...listeners]) {
      try {
        listener(fact);
      } catch (err) {
        this.failed(err);
      }
    }
  }
}
