// The supervisor's record of one running conversation turn: its job, its worker and what is pending for it.
import type { Reservation } from '../budget/governor.js';
import type { TurnJob } from '../domain/job.js';
import type { Usage } from '../protocol/messages.js';
import type { InternalToolHost } from '../tools/toolOutcome.js';
import type { Child } from './children.js';
import type { WorkerHandle } from './workerHandle.js';

export interface LiveTurn {
  node: number;
  job: TurnJob;
  turnId: string;
  handle: WorkerHandle;
  /** Its entry in the child table (kind `turn`). */
  child: Child;
  /** Internal tool names this turn may round-trip. */
  internal: ReadonlySet<string>;
  /** Code tools the worker runs only after the supervisor's permission check. */
  gated: ReadonlySet<string>;
  /** What its internal tools run against: built once, at spawn, for every tool request of the turn. */
  host: InternalToolHost;
  startedAt: number;
  /** Set once `turn_done` (or a synthetic failure) has been folded. */
  settled: boolean;
  /** Set when a drain abandoned it: its inbox event stays pending and replays on the next start. */
  abandoned: boolean;
  /** The turn's usage as its worker last reported it (a killed worker is charged this). */
  usage: Usage;
  /** The dispatch reservation, until it settles; null without a budget. */
  reservation: Reservation | null;
  /** What of `usage` already reached the budget windows (charged as each usage frame arrives). */
  charged: Usage;
  parked: Map<number, NodeJS.Timeout>;
  /** Run once when the turn's worker is gone (watches, pending approvals). */
  cleanups: Array<() => void>;
}
