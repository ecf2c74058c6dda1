// The live conversation turns over the child table (children.ts): a turn's frames, its cancel and how it ends.
// Decides nothing about conversations or the inbox: it reports each turn's result to the reactor exactly once.

import type { Reservation } from '../budget/governor.js';
import type { TurnJob } from '../domain/job.js';
import type { Logger } from '../obs/log.js';
import {
  dispatchFrame,
  type FrameHandlers,
  type SpawnPayload,
  type TurnResult,
  type UpFrame,
} from '../protocol/frames.js';
import type { Usage } from '../protocol/messages.js';
import type { Child, Children, EndReason } from './children.js';
import { failedResult } from './fold.js';
import type { WorkerHandle } from './workerHandle.js';

export interface TurnWorkerDeps {
  children: Children;
  log: Logger;
  now(): number;
  /** A tool_request from a live turn. */
  serveTool(turn: LiveTurn, frame: Extract<UpFrame, { type: 'tool_request' }>): void;
  /** A progress frame (turn.think / turn.round / turn.tool) from a live turn. */
  onProgress(turn: LiveTurn, event: string, fields: Record<string, unknown>): void;
  /** A usage frame: what the turn spent since its previous report. */
  onUsage(turn: LiveTurn, spent: Usage): void;
  /** A budget_request from a live turn. */
  admit(turn: LiveTurn, frame: Extract<UpFrame, { type: 'budget_request' }>): void;
  /** Exactly once per turn that was not abandoned: its result (reported or synthetic). */
  onSettled(turn: LiveTurn, result: TurnResult): void;
  /** After a turn's worker is gone (settled or abandoned). */
  onGone(turn: LiveTurn): void;
}

export class TurnWorkers {
  private readonly live = new Map<number, LiveTurn>();

  constructor(private readonly deps: TurnWorkerDeps) {}

  get size(): number {
    return this.live.size;
  }

  /** Conversations with a live turn. */
  busyContexts(): string[] {
    return [...this.live.values()].map((t) => t.job.ctx);
  }

  /** Conversations whose live turn has not folded back yet (its worker may still be exiting after). */
  unfoldedContexts(): string[] {
    return [...this.live.values()].filter((t) => !t.settled && !t.abandoned).map((t) => t.job.ctx);
  }

  /** Starts a worker on `payload`; throws (with nothing left running) when the worker cannot be started. */
  start(job: TurnJob, payload: SpawnPayload): LiveTurn {
    let turn: LiveTurn | undefined;
    const child = this.deps.children.spawn(
      { kind: 'turn', ctx: job.ctx, parentNode: null, payload },
      {
        onFrame: (frame) => turn && this.onFrame(turn, frame),
        onUsage: (spent) => turn && this.onUsage(turn, spent),
        onExit: (ended, outcome) => turn && this.onExit(turn, ended, outcome),
      },
    );
    turn = {
      node: child.node,
      job,
      turnId: payload.turn.turn_id,
      handle: child.handle,
      child,
      internal: new Set(payload.turn.internal),
      gated: new Set(payload.turn.gated ?? []),
      startedAt: child.startedAt,
      settled: false,
      abandoned: false,
      usage: { input_tokens: 0, output_tokens: 0 },
      reservation: null,
      charged: { input_tokens: 0, output_tokens: 0 },
      parked: new Map(),
      cleanups: [],
    };
    this.live.set(child.node, turn);
    return turn;
  }

  /** Cancels a conversation's live turn: the worker seals and reports; its process group dies after a grace. */
  cancel(ctx: string, reason: string): boolean {
    return this.cancelWhere((t) => t.job.ctx === ctx, reason);
  }

  /** Cancels the live turn answering inbox event `eventId`. */
  cancelEvent(eventId: string, reason: string): boolean {
    return this.cancelWhere((t) => t.job.event.id === eventId, reason);
  }

  private cancelWhere(match: (t: LiveTurn) => boolean, reason: string): boolean {
    let found = false;
    for (const turn of this.live.values()) {
      if (!match(turn) || turn.settled) continue;
      found = true;
      this.deps.children.cancel(turn.child, reason);
    }
    return found;
  }

  /** Kills every live turn without folding it: its inbox event stays pending and replays on the next start. */
  abandonAll(reason: string): number {
    for (const turn of this.live.values()) {
      turn.abandoned = true;
      this.deps.children.kill(turn.child, reason);
    }
    return this.live.size;
  }

  private onUsage(turn: LiveTurn, spent: Usage): void {
    turn.usage = { ...turn.child.reported };
    this.deps.onUsage(turn, spent);
  }

  private onFrame(turn: LiveTurn, frame: UpFrame): void {
    const { log } = this.deps;
    const handlers: FrameHandlers<UpFrame> = {
      ready: () => {},
      pong: () => {},
      event: (f) => {
        // Body text and tool cards carry content: they go to the task's own feed, never to the log.
        if (f.event !== 'turn.text' && f.event !== 'turn.tool_done') {
          log.debug(f.event, { node: turn.node, ctx: turn.job.ctx, ...f.fields });
        }
        this.deps.onProgress(turn, f.event, f.fields);
      },
      usage: (f) => this.deps.children.account(turn.child, f),
      failed: (f) => {
        // The worker's own account of its failure wins over why the supervisor was ending it.
        turn.child.endReason = { status: 'failed', error: f.error, kind: f.error_kind ?? 'worker' };
        turn.handle.send({ type: 'cancel', reason: 'failed' });
      },
      tool_request: (f) => this.deps.serveTool(turn, f),
      budget_request: (f) => this.deps.admit(turn, f),
      turn_done: (f) => {
        this.deps.children.account(turn.child, f.turn.usage);
        this.settle(turn, f.turn);
      },
    };
    dispatchFrame(handlers, frame);
  }

  private onExit(turn: LiveTurn, ended: EndReason | null, outcome: string): void {
    if (!turn.settled && !turn.abandoned) {
      const reason = ended ?? {
        status: 'failed',
        error: `worker exited without a result (${outcome})`,
        kind: 'worker',
      };
      this.deps.log.warn('turn.failed', { ctx: turn.job.ctx, node: turn.node, err: reason.error });
      // No terminal frame: the turn is charged what its usage frames reported (reference §15, going beyond it).
      this.settle(turn, { ...failedResult(reason.error, reason.status, reason.kind), usage: { ...turn.usage } });
    }
    this.live.delete(turn.node);
    this.deps.onGone(turn);
  }

  private settle(turn: LiveTurn, result: TurnResult): void {
    if (turn.settled || turn.abandoned) return;
    turn.settled = true;
    this.deps.onSettled(turn, result);
  }
}

// The supervisor's record of one running conversation turn: its job, its worker and what is pending for it.
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
