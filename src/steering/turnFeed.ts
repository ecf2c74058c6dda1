// The read-only feed the internal producers react to: a fold that committed, a goal continuation that is due, a
// wake turn that is due, and what waits or runs for a conversation now. The steering desk decides and records
// (a goal's step, a note) before it publishes; producers only read and accept.
import type { Goal } from '../domain/goal.js';
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

/** A goal's next continuation, already recorded (its count, its accounting): the producer accepts it. */
export interface ContinuationDue {
  ctx: string;
  /** The conversation's owner: the continuation gets their tools, never more. */
  principal: string | null;
  goal: Goal;
}

/** A turn for the sender of a message.send whose run folded (`on_workflow_finished: think`), already checked. */
export interface WakeDue {
  /** The conversation whose run folded. */
  about: string;
  ctx: string;
  text: string;
  principal: string | null;
  msg_depth: number;
}

/** What a producer may observe of the turns. */
export interface TurnFeed {
  /** After each fold's commit, in commit order; returns the unsubscribe function. */
  onCommitted(listener: (turn: CommittedTurn) => void): () => void;
  /** A goal's continuation is due (recorded by the steering desk); the listener accepts it. */
  onContinuationDue(listener: (due: ContinuationDue) => void): () => void;
  /** A wake turn is due (its note and depth checked by the steering desk); the listener accepts it. */
  onWakeDue(listener: (due: WakeDue) => void): () => void;
  activity(ctx: string): Activity;
}

type Listeners<T> = Set<(fact: T) => void>;

/** The publishing side; a listener that throws is reported and the others still hear the fact. */
export class TurnFacts implements TurnFeed {
  private readonly committedListeners: Listeners<CommittedTurn> = new Set();
  private readonly continuationListeners: Listeners<ContinuationDue> = new Set();
  private readonly wakeListeners: Listeners<WakeDue> = new Set();

  constructor(
    private readonly read: (ctx: string) => Activity,
    private readonly failed: (err: unknown) => void,
  ) {}

  onCommitted(listener: (turn: CommittedTurn) => void): () => void {
    return subscribe(this.committedListeners, listener);
  }

  onContinuationDue(listener: (due: ContinuationDue) => void): () => void {
    return subscribe(this.continuationListeners, listener);
  }

  onWakeDue(listener: (due: WakeDue) => void): () => void {
    return subscribe(this.wakeListeners, listener);
  }

  activity(ctx: string): Activity {
    return this.read(ctx);
  }

  committed(turn: CommittedTurn): void {
    this.publish(this.committedListeners, turn);
  }

  continuationDue(due: ContinuationDue): void {
    this.publish(this.continuationListeners, due);
  }

  wakeDue(due: WakeDue): void {
    this.publish(this.wakeListeners, due);
  }

  private publish<T>(listeners: Listeners<T>, fact: T): void {
    for (const listener of [...listeners]) {
      try {
        listener(fact);
      } catch (err) {
        this.failed(err);
      }
    }
  }
}

function subscribe<T>(listeners: Listeners<T>, listener: (fact: T) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
