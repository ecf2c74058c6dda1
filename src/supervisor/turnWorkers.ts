// The live conversation turns over the child table (children.ts): a turn's frames, its cancel and how it ends.
// Decides nothing about conversations or the inbox: it reports each turn's turn_done and its worker's exit.

import type { Reservation } from '../budget/governor.js';
import type { InboxEvent } from '../domain/inbox.js';
import type { TurnJob } from '../domain/job.js';
import { ChildTraces } from '../obs/childTraces.js';
import type { Logger } from '../obs/log.js';
import type { SpanHandle, Tracer } from '../obs/tracing.js';
import {
  dispatchFrame,
  type FrameHandlers,
  type SpawnPayload,
  type TurnResult,
  type UpFrame,
} from '../protocol/frames.js';
import type { Msg, Usage } from '../protocol/messages.js';
import type { JournalPort } from '../store/store.js';
import type { TurnJudging } from '../tools/surface.js';
import type { InternalToolHost } from '../tools/toolOutcome.js';
import { type TurnEnd, turnEnd } from '../tools/turnEnd.js';
import type { Child, ChildExit, Children, EndReason } from './children.js';
import { journalFailed, lookUpCall, recordCall } from './journalFrames.js';
import type { WorkerHandle } from './workerHandle.js';

export interface TurnWorkerDeps {
  children: Children;
  log: Logger;
  now(): number;
  /** With tracing on, each turn is an `invoke_agent` span its worker's spans nest under. */
  tracer: Tracer | null;
  /** The tool host of a turn being spawned (its internal tools' capabilities, seen from that turn). */
  toolHost(turn: Pick<LiveTurn, 'node' | 'job' | 'turnId' | 'end'>): InternalToolHost;
  /** A tool_request from a live turn. */
  serveTool(turn: LiveTurn, frame: Extract<UpFrame, { type: 'tool_request' }>): void;
  /** A progress frame (turn.think / turn.round / turn.tool) from a live turn. */
  onProgress(turn: LiveTurn, event: string, fields: Record<string, unknown>): void;
  /** A usage frame: what the turn spent since its previous report. */
  onUsage(turn: LiveTurn, spent: Usage): void;
  /** A budget_request from a live turn. */
  admit(turn: LiveTurn, frame: Extract<UpFrame, { type: 'budget_request' }>): void;
  /** The worker's turn_done (at most once per turn). */
  onTurnDone(turn: LiveTurn, result: TurnResult): void;
  /** Once, after the worker is gone: why the supervisor (or a `failed` frame) ended it, and how it exited. */
  onExit(turn: LiveTurn, ended: EndReason | null, exit: ChildExit): void;
  /** The tool journal the workers' MCP calls are looked up in and recorded to (interfaces reference §4.4). */
  journal?: JournalPort;
}

/** The live turn workers by node: resources only (a job's state is in the job table). */
export class TurnWorkers {
  private readonly live = new Map<number, LiveTurn>();
  private readonly traces: ChildTraces | null;

  constructor(private readonly deps: TurnWorkerDeps) {
    this.traces = deps.tracer ? new ChildTraces(deps.tracer, deps.now) : null;
    if (this.traces) deps.children.traceWith(this.traces);
  }

  /** With tracing on, the message's `accept` span, which its turn's span starts under. */
  traceAccept(event: InboxEvent): void {
    this.traces?.accepted(event);
  }

  get size(): number {
    return this.live.size;
  }

  /** Starts a worker on `payload`; throws (with nothing left running) when the worker cannot be started. */
  start(job: TurnJob, payload: SpawnPayload): LiveTurn {
    let turn: LiveTurn | undefined;
    const span = this.traceTurn(job, payload);
    let child: Child;
    try {
      child = this.deps.children.spawn(
        { kind: 'turn', ctx: job.ctx, parentNode: null, event: job.event.id, payload },
        {
          onFrame: (frame) => turn && this.onFrame(turn, frame),
          onUsage: (spent) => turn && this.onUsage(turn, spent),
          onExit: (ended, _outcome, exit) => turn && this.onExit(turn, ended, exit),
        },
      );
    } catch (err) {
      span?.end('the worker could not be started');
      throw err;
    }
    const who = { node: child.node, job, turnId: payload.turn.turn_id, end: turnEnd() };
    turn = {
      ...who,
      host: this.deps.toolHost(who),
      handle: child.handle,
      child,
      internal: new Set(payload.turn.internal),
      offered: new Set([...payload.turn.tools.map((t) => t.name), ...payload.turn.internal]),
      gated: new Set(payload.turn.gated ?? []),
      startedAt: child.startedAt,
      settled: false,
      usage: { input_tokens: 0, output_tokens: 0 },
      reservation: null,
      notes: [],
      charged: { input_tokens: 0, output_tokens: 0 },
      parked: new Map(),
      ...(span ? { span } : {}),
    };
    this.live.set(child.node, turn);
    return turn;
  }

  /** The turn's span, its traceparent put in the spawn frame (null with tracing off). */
  private traceTurn(job: TurnJob, payload: SpawnPayload): SpanHandle | null {
    const tracer = this.deps.tracer;
    const endpoint = payload.telemetry.trace?.endpoint ?? null;
    if (!tracer || endpoint === null) return null;
    const span = tracer.start(
      'invoke_agent',
      {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.conversation.id': job.ctx,
        'agentd.turn': payload.turn.turn_id,
      },
      this.traces?.turnParent(job.event.id) ?? null,
    );
    payload.telemetry.trace = { traceparent: span.traceparent, endpoint };
    return span;
  }

  /** The live turn on `node`, if its worker still runs. */
  at(node: number): LiveTurn | undefined {
    return this.live.get(node);
  }

  /** Asks the worker on `node` to seal and report; the child manager kills its process group after a grace. */
  cancel(node: number, reason: string): void {
    const turn = this.live.get(node);
    if (turn) this.deps.children.cancel(turn.child, reason);
  }

  /** Kills the worker on `node` (a drain abandons its turn: the inbox event replays on the next start). */
  kill(node: number, reason: string): void {
    const turn = this.live.get(node);
    if (turn) this.deps.children.kill(turn.child, reason);
  }

  private onUsage(turn: LiveTurn, spent: Usage): void {
    turn.usage = { ...turn.child.reported };
    this.deps.onUsage(turn, spent);
  }

  private onFrame(turn: LiveTurn, frame: UpFrame): void {
    const { log } = this.deps;
    const handlers: FrameHandlers<UpFrame> = {
      ready: () => {},
      idle: () => {}, // the child table takes it (children.ts)
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
      journal_lookup: (f) => void this.lookUp(turn, f),
      journal_record: (f) =>
        recordCall(this.deps.journal, f, this.deps.now(), journalFailed(this.deps.log, turn.job.ctx)),
      turn_done: (f) => {
        if (turn.settled) return;
        turn.settled = true;
        turn.result = f.turn;
        this.deps.children.account(turn.child, f.turn.usage);
        this.deps.onTurnDone(turn, f.turn);
      },
    };
    dispatchFrame(handlers, frame);
  }

  /** Answers a journal lookup with the completed call's answer when its arguments match, else null. */
  private async lookUp(turn: LiveTurn, f: Extract<UpFrame, { type: 'journal_lookup' }>): Promise<void> {
    const answer = await lookUpCall(this.deps.journal, f, journalFailed(this.deps.log, turn.job.ctx));
    turn.handle.send({ type: 'tool_result', id: f.id, result: answer, is_error: false });
  }

  private onExit(turn: LiveTurn, ended: EndReason | null, exit: ChildExit): void {
    turn.settled = true;
    this.live.delete(turn.node);
    // A worker gone without turn_done (killed, drained, crashed) leaves its span open; after a turn_done this is a
    // no-op (span ends are idempotent).
    turn.span?.end('the worker exited before its turn was done');
    this.deps.onExit(turn, ended, exit);
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
  /** Every tool name the model was offered: the only names a metric label may take from this turn. */
  offered: ReadonlySet<string>;
  /** Code tools the worker runs only after the supervisor's permission check. */
  gated: ReadonlySet<string>;
  /** What its internal tools run against: built once, at spawn, for every tool request of the turn. */
  host: InternalToolHost;
  startedAt: number;
  /** Set once its turn_done arrived or its worker is gone: nothing more is sent to it. */
  settled: boolean;
  /** What its turn_done reported (a cancelled turn folds it only once its worker is gone). */
  result?: TurnResult;
  /** The turn's usage as its worker last reported it (a killed worker is charged this). */
  usage: Usage;
  /** The notes the turn was built with at the transcript's tail: the fold appends them before its delta. */
  notes: Msg[];
  /** The dispatch reservation, until it settles; null without a budget. */
  reservation: Reservation | null;
  /** What of `usage` already reached the budget windows (charged as each usage frame arrives). */
  charged: Usage;
  parked: Map<number, NodeJS.Timeout>;
  /** The policies, judged routes and timeouts captured at launch; absent: those in force. */
  judging?: TurnJudging;
  /** Run once when the turn's worker is gone (watches, pending approvals). */
  end: TurnEnd;
  /** Its `invoke_agent` span while tracing is on; ended when the turn settles. */
  span?: SpanHandle;
}
