// Think children: the turn worker in `think` mode (no tools, a structured answer) bound to a conversation.
// Used by the think and decide tools, preflight and compaction. Owns their workers, deadlines and what they spent.
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
import type { Msg, Usage } from '../protocol/messages.js';
import type { ToolResult } from '../tools/toolOutcome.js';
import { telemetry } from './turnBuild.js';
import type { WorkerHandle } from './workerHandle.js';
import type { WorkerPool } from './workerPool.js';

/** What a think child is asked (reference §13 "Think tool child", §16.3). */
export interface ThinkJob {
  purpose: 'think' | 'decide' | 'preflight' | 'compaction';
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

/** How a think child ended: its answer, or why there is none (it never started, or it ended without one). */
export type ThinkOutcome =
  | { kind: 'answer'; value: unknown }
  | { kind: 'spawn_fail'; error: string }
  | { kind: 'failed'; error: string };

interface LiveThink {
  job: ThinkJob;
  handle: WorkerHandle;
  settled: boolean;
  resolve: (r: ThinkOutcome) => void;
  timer: NodeJS.Timeout;
  /** Running totals from the child's usage frames (what a killed child is charged). */
  usage: Usage;
  charged: boolean;
}

/** Rounds, steps, deadline and output cap of a think child by purpose (reference §19 constants). */
const TOOL_LIMITS = { max_rounds: 3, max_steps: 4, deadline_ms: 300_000, tokens_per_call: 4096 };
const LIMITS: Record<ThinkJob['purpose'], typeof TOOL_LIMITS> = {
  think: TOOL_LIMITS,
  decide: TOOL_LIMITS,
  preflight: { max_rounds: 3, max_steps: 4, deadline_ms: 60_000, tokens_per_call: 1024 },
  compaction: { max_rounds: 3, max_steps: 4, deadline_ms: 120_000, tokens_per_call: 4096 },
};
const BACKSTOP_GRACE_MS = 5_000;

export interface ThinkDeps {
  pool: WorkerPool;
  config: Readonly<Config>;
  log: Logger;
  onChange: () => void;
  /** What a child spent, once, when it ends (charged to its conversation's budget scopes). */
  onSpent: (job: ThinkJob, usage: Usage) => void;
}

export class ThinkChildren {
  private readonly live = new Set<LiveThink>();

  constructor(private readonly deps: ThinkDeps) {}

  /** Runs a think child for a tool; resolves with its value, or an error result naming how it ended. */
  async run(job: ThinkJob): Promise<ToolResult> {
    const outcome = await this.start(job);
    return outcome.kind === 'answer'
      ? { result: outcome.value, is_error: false }
      : { result: outcome.error, is_error: true };
  }

  /** Starts a think child; resolves with how it ended. Never rejects. */
  start(job: ThinkJob): Promise<ThinkOutcome> {
    return new Promise((resolve) => {
      const entry = { job, settled: false, resolve, usage: { input_tokens: 0, output_tokens: 0 } } as LiveThink;
      try {
        entry.handle = this.deps.pool.take({
          onFrame: (frame) => this.onFrame(entry, frame),
          onClose: (code, signal) => this.onClose(entry, code, signal),
          onProtocolError: (err) => this.deps.log.warn('loop.error', { ctx: job.ctx, purpose: job.purpose, err }),
        });
      } catch (err) {
        resolve({ kind: 'spawn_fail', error: `${job.purpose}: could not start a worker: ${describeError(err)}` });
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

  /** Kills the think child running as `turnId` (a preflight whose message was cancelled). */
  killTurn(turnId: string): void {
    for (const entry of this.live) if (entry.job.turnId === turnId) entry.handle.kill();
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
    // Preflight and compaction (reference §6.2, §16.3): temperature 0 and no per-turn token cap of their own.
    const triage = job.purpose === 'compaction' || job.purpose === 'preflight';
    return {
      version: PROTOCOL_VERSION,
      intelligence: specForJob(config, job.purpose),
      mcp_servers: [],
      code_tools_module: null,
      limits: {
        max_steps: limits.max_steps,
        max_tokens: triage ? 0 : config.limits.run.tokens,
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
        ...(triage ? { temperature: 0 } : {}),
        turn_id: job.turnId,
      },
    };
  }

  private onFrame(entry: LiveThink, frame: UpFrame): void {
    const handlers: FrameHandlers<UpFrame> = {
      ready: () => {},
      pong: () => {},
      event: () => {},
      usage: (f) => {
        entry.usage = { input_tokens: f.input_tokens, output_tokens: f.output_tokens };
      },
      failed: (f) => this.settle(entry, { kind: 'failed', error: `${entry.job.purpose}: ${f.error}` }),
      tool_request: (f) =>
        entry.handle.send({ type: 'tool_result', id: f.id, result: 'no tools in a think child', is_error: true }),
      budget_request: (f) => entry.handle.send({ type: 'budget_grant', id: f.id, ok: true, wait_ms: 0 }),
      turn_done: ({ turn }) => {
        this.deps.log.info('think.done', { ctx: entry.job.ctx, purpose: entry.job.purpose, status: turn.status });
        entry.usage = { ...turn.usage };
        this.charge(entry);
        if (turn.status === 'completed') this.settle(entry, { kind: 'answer', value: turn.value ?? turn.text ?? null });
        else {
          const suffix = turn.error ? `: ${turn.error}` : '';
          this.settle(entry, { kind: 'failed', error: `${entry.job.purpose} ${turn.status}${suffix}` });
        }
      },
    };
    dispatchFrame(handlers, frame);
  }

  private onClose(entry: LiveThink, code: number | null, signal: NodeJS.Signals | null): void {
    clearTimeout(entry.timer);
    this.live.delete(entry);
    const how = code !== null ? `exit code ${code}` : `signal ${signal}`;
    this.charge(entry);
    this.settle(entry, { kind: 'failed', error: `${entry.job.purpose} worker exited without a result (${how})` });
    this.deps.onChange();
  }

  /** Charges what the child spent, once: from turn_done, or from its last usage frame when it died without one. */
  private charge(entry: LiveThink): void {
    if (entry.charged) return;
    entry.charged = true;
    this.deps.onSpent(entry.job, entry.usage);
  }

  private settle(entry: LiveThink, outcome: ThinkOutcome): void {
    if (entry.settled) return;
    entry.settled = true;
    entry.resolve(outcome);
  }
}
