// The live conversation turns: one worker process each, its frames, its timers and how it ends.
// Decides nothing about conversations or the inbox: it reports each turn's result to the reactor exactly once.

import type { TurnJob } from '../domain/job.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import {
  dispatchFrame,
  type FrameHandlers,
  type SpawnPayload,
  type TurnResult,
  type UpFrame,
} from '../protocol/frames.js';
import type { Usage } from '../protocol/messages.js';
import type { TurnStatus } from '../protocol/status.js';
import { failedResult } from './fold.js';
import type { LiveTurn } from './liveTurn.js';
import type { WorkerPool } from './workerPool.js';

/** Grace between a cancel frame and the killpg, and after the deadline before the backstop kill. */
const CANCEL_GRACE_MS = 2_000;
const DEADLINE_GRACE_MS = 5_000;

export interface TurnWorkerDeps {
  pool: WorkerPool;
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
  private nextNode = 1;

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
    const node = this.nextNode++;
    const handle = this.deps.pool.take({
      onFrame: (frame) => this.onFrame(node, frame),
      onClose: (code, signal) => this.onClose(node, code, signal),
      onProtocolError: (err) => this.deps.log.warn('loop.error', { node, ctx: job.ctx, err }),
    });
    const turn: LiveTurn = {
      node,
      job,
      turnId: payload.turn.turn_id,
      handle,
      internal: new Set(payload.turn.internal),
      gated: new Set(payload.turn.gated ?? []),
      startedAt: this.deps.now(),
      settled: false,
      endReason: null,
      abandoned: false,
      usage: { input_tokens: 0, output_tokens: 0 },
      reservation: null,
      charged: { input_tokens: 0, output_tokens: 0 },
      parked: new Map(),
      timers: [],
      cleanups: [],
    };
    this.live.set(node, turn);
    try {
      handle.send({ type: 'spawn', ...payload });
    } catch (err) {
      turn.abandoned = true;
      handle.kill();
      this.live.delete(node);
      throw err;
    }
    const backstop = payload.limits.deadline_ms + DEADLINE_GRACE_MS;
    turn.timers.push(setTimeout(() => this.end(turn, 'deadline', 'the worker outlived its deadline'), backstop));
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
      turn.endReason = { status: 'cancelled', error: reason };
      turn.handle.send({ type: 'cancel', reason });
      turn.timers.push(setTimeout(() => this.kill(turn, 'cancel grace elapsed'), CANCEL_GRACE_MS));
    }
    return found;
  }

  /** Kills every live turn without folding it: its inbox event stays pending and replays on the next start. */
  abandonAll(reason: string): number {
    for (const turn of this.live.values()) {
      turn.abandoned = true;
      this.kill(turn, reason);
    }
    return this.live.size;
  }

  private end(turn: LiveTurn, status: TurnStatus, error: string): void {
    turn.endReason = { status, error };
    this.kill(turn, error);
  }

  private kill(turn: LiveTurn, reason: string): void {
    this.deps.log.warn('turn.kill', { node: turn.node, ctx: turn.job.ctx, worker_pid: turn.handle.pid, reason });
    turn.handle.kill();
  }

  private onFrame(node: number, frame: UpFrame): void {
    const turn = this.live.get(node);
    if (!turn) return;
    const { log } = this.deps;
    const handlers: FrameHandlers<UpFrame> = {
      ready: () => {},
      pong: () => {},
      event: (f) => {
        // Body text and tool cards carry content: they go to the task's own feed, never to the log.
        if (f.event !== 'turn.text' && f.event !== 'turn.tool_done') {
          log.debug(f.event, { node, ctx: turn.job.ctx, ...f.fields });
        }
        this.deps.onProgress(turn, f.event, f.fields);
      },
      usage: (f) => {
        // Frames carry the turn's running totals; the difference is what the last call spent.
        const spent = {
          input_tokens: Math.max(0, f.input_tokens - turn.usage.input_tokens),
          output_tokens: Math.max(0, f.output_tokens - turn.usage.output_tokens),
        };
        turn.usage = { input_tokens: f.input_tokens, output_tokens: f.output_tokens };
        this.deps.onUsage(turn, spent);
      },
      failed: (f) => {
        turn.endReason = { status: 'failed', error: f.error, kind: f.error_kind ?? 'worker' };
        turn.handle.send({ type: 'cancel', reason: 'failed' });
      },
      tool_request: (f) => this.deps.serveTool(turn, f),
      budget_request: (f) => this.deps.admit(turn, f),
      turn_done: (f) => this.settle(turn, f.turn),
    };
    try {
      dispatchFrame(handlers, frame);
    } catch (err) {
      log.error('loop.error', {
        node,
        ctx: turn.job.ctx,
        err: `handling a ${frame.type} frame: ${describeError(err)}`,
      });
    }
  }

  private onClose(node: number, code: number | null, signal: NodeJS.Signals | null): void {
    const turn = this.live.get(node);
    if (!turn) return;
    const { log } = this.deps;
    log.info('child.exit', { node, worker_pid: turn.handle.pid, kind: 'turn', ctx: turn.job.ctx, code, signal });
    for (const t of turn.timers) clearTimeout(t);
    if (!turn.settled && !turn.abandoned) {
      const outcome = code !== null ? `exit code ${code}` : `signal ${signal}`;
      const reason = turn.endReason ?? {
        status: 'failed',
        error: `worker exited without a result (${outcome})`,
        kind: 'worker',
      };
      log.warn('turn.failed', { ctx: turn.job.ctx, node, err: reason.error });
      // No terminal frame: the turn is charged what its usage frames reported (reference §15, going beyond it).
      this.settle(turn, { ...failedResult(reason.error, reason.status, reason.kind), usage: { ...turn.usage } });
    }
    this.live.delete(node);
    this.deps.onGone(turn);
  }

  private settle(turn: LiveTurn, result: TurnResult): void {
    if (turn.settled || turn.abandoned) return;
    turn.settled = true;
    this.deps.onSettled(turn, result);
  }
}
