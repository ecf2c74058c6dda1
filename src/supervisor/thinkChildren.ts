// Think children: the turn worker in `think` mode (no tools, a structured answer) bound to a conversation.
// Used by the think and decide tools and by preflight (compaction later). Owns their workers and deadlines.
import type { Config } from '../config/types.js';
import { describeError } from '../errors.js';
import { specForJob } from '../intel/models.js';
import type { Logger } from '../obs/log.js';
import {
  dispatchFrame,
  type FrameHandlers,
  PROTOCOL_VERSION,
  type SpawnPayload,
  type UpFrame,
} from '../protocol/frames.js';
import type { Msg } from '../protocol/messages.js';
import type { ToolResult } from '../tools/toolOutcome.js';
import { telemetry } from './turnBuild.js';
import type { WorkerHandle } from './workerHandle.js';
import type { WorkerPool } from './workerPool.js';

/** What a think child is asked (reference §13 "Think tool child"). */
export interface ThinkJob {
  purpose: 'think' | 'decide' | 'preflight';
  /** The conversation it is bound to (busy while it runs). */
  ctx: string;
  /** The node of the turn that asked, so the child dies with it; null for preflight (no turn yet). */
  parentNode: number | null;
  system: string;
  messages: Msg[];
  schema?: Record<string, unknown>;
  turnId: string;
  /** Called once the child's worker has its spawn frame (never when it could not start). */
  onSpawn?: (workerPid: number) => void;
}

interface LiveThink {
  job: ThinkJob;
  handle: WorkerHandle;
  settled: boolean;
  resolve: (r: ToolResult) => void;
  timer: NodeJS.Timeout;
}

/** Rounds, steps, deadline and output cap of a think child by purpose (reference §19 constants). */
const TOOL_LIMITS = { max_rounds: 3, max_steps: 4, deadline_ms: 300_000, tokens_per_call: 4096 };
const LIMITS: Record<ThinkJob['purpose'], typeof TOOL_LIMITS> = {
  think: TOOL_LIMITS,
  decide: TOOL_LIMITS,
  preflight: { max_rounds: 3, max_steps: 4, deadline_ms: 60_000, tokens_per_call: 1024 },
};
const BACKSTOP_GRACE_MS = 5_000;

export class ThinkChildren {
  private readonly live = new Set<LiveThink>();

  constructor(
    private readonly deps: { pool: WorkerPool; config: Readonly<Config>; log: Logger; onChange: () => void },
  ) {}

  /** Runs a think child; resolves with its value, or an error result naming how it ended. Never rejects. */
  run(job: ThinkJob): Promise<ToolResult> {
    return new Promise((resolve) => {
      const entry = { job, settled: false, resolve } as LiveThink;
      try {
        entry.handle = this.deps.pool.take({
          onFrame: (frame) => this.onFrame(entry, frame),
          onClose: (code, signal) => this.onClose(entry, code, signal),
          onProtocolError: (err) => this.deps.log.warn('loop.error', { ctx: job.ctx, purpose: job.purpose, err }),
        });
      } catch (err) {
        resolve({ result: `${job.purpose}: could not start a worker: ${describeError(err)}`, is_error: true });
        return;
      }
      entry.timer = setTimeout(() => entry.handle.kill(), LIMITS[job.purpose].deadline_ms + BACKSTOP_GRACE_MS);
      this.live.add(entry);
      entry.handle.send({ type: 'spawn', ...this.payload(job) });
      this.deps.log.info('think.spawn', {
        ctx: job.ctx,
        purpose: job.purpose,
        worker_pid: entry.handle.pid,
        turn: job.turnId,
      });
      job.onSpawn?.(entry.handle.pid);
    });
  }

  /** Conversations a live think child is bound to (the dispatch gate keeps them busy). */
  busyContexts(): string[] {
    return [...this.live].map((t) => t.job.ctx);
  }

  /** Kills the think children a finished turn started: nobody waits for their answer any more. */
  killChildrenOf(parentNode: number): void {
    for (const t of this.live) if (t.job.parentNode === parentNode) t.handle.kill();
  }

  killAll(): void {
    for (const t of this.live) t.handle.kill();
  }

  private payload(job: ThinkJob): SpawnPayload {
    const { config } = this.deps;
    const limits = LIMITS[job.purpose];
    return {
      version: PROTOCOL_VERSION,
      intelligence: specForJob(config, job.purpose),
      mcp_servers: [],
      code_tools_module: null,
      limits: {
        max_steps: limits.max_steps,
        max_tokens: config.limits.run.tokens,
        deadline_ms: limits.deadline_ms,
      },
      telemetry: telemetry(config, `${job.purpose === 'preflight' ? 'preflight' : 'think'}/${job.ctx}`),
      turn: {
        kind: 'think',
        system: job.system,
        messages: job.messages,
        tools: [],
        internal: [],
        mcp_routes: {},
        ...(job.schema ? { output_schema: job.schema } : {}),
        max_rounds: limits.max_rounds,
        budget_admission: false,
        idempotency_prefix: '',
        max_tokens_per_call: limits.tokens_per_call,
        turn_id: job.turnId,
      },
    };
  }

  private onFrame(entry: LiveThink, frame: UpFrame): void {
    const handlers: FrameHandlers<UpFrame> = {
      ready: () => {},
      pong: () => {},
      event: () => {},
      usage: () => {},
      failed: (f) => this.settle(entry, { result: `${entry.job.purpose}: ${f.error}`, is_error: true }),
      tool_request: (f) =>
        entry.handle.send({ type: 'tool_result', id: f.id, result: 'no tools in a think child', is_error: true }),
      budget_request: (f) => entry.handle.send({ type: 'budget_grant', id: f.id, ok: true, wait_ms: 0 }),
      turn_done: ({ turn }) => {
        this.deps.log.info('think.done', { ctx: entry.job.ctx, purpose: entry.job.purpose, status: turn.status });
        if (turn.status === 'completed')
          this.settle(entry, { result: turn.value ?? turn.text ?? null, is_error: false });
        else {
          const suffix = turn.error ? `: ${turn.error}` : '';
          this.settle(entry, { result: `${entry.job.purpose} ${turn.status}${suffix}`, is_error: true });
        }
      },
    };
    dispatchFrame(handlers, frame);
  }

  private onClose(entry: LiveThink, code: number | null, signal: NodeJS.Signals | null): void {
    clearTimeout(entry.timer);
    this.live.delete(entry);
    const how = code !== null ? `exit code ${code}` : `signal ${signal}`;
    this.settle(entry, { result: `${entry.job.purpose} worker exited without a result (${how})`, is_error: true });
    this.deps.onChange();
  }

  private settle(entry: LiveThink, result: ToolResult): void {
    if (entry.settled) return;
    entry.settled = true;
    entry.resolve(result);
  }
}
