// Think children: the turn worker in `think` mode (no tools, a structured answer) bound to a conversation.
// Used by the think and decide tools, preflight and compaction. Their payloads and answers; the child table
// (children.ts) runs their processes, deadlines, liveness and usage.
import type { Config } from '../config/types.js';
import type { ThinkJob } from '../domain/job.js';
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
import type { Usage } from '../protocol/messages.js';
import type { ToolResult } from '../tools/toolOutcome.js';
import type { Child, Children, EndReason } from './children.js';
import { telemetry } from './turnSnapshot.js';

/** How a think child ended: its answer, or why there is none (it never started, or it ended without one). */
export type ThinkOutcome =
  | { kind: 'answer'; value: unknown }
  | { kind: 'spawn_fail'; error: string }
  | { kind: 'failed'; error: string };

interface LiveThink {
  job: ThinkJob;
  child: Child;
  settled: boolean;
  resolve: (r: ThinkOutcome) => void;
}

/** Rounds, steps, deadline and output cap of a think child by purpose (reference §19 constants). */
const TOOL_LIMITS = { max_rounds: 3, max_steps: 4, deadline_ms: 300_000, tokens_per_call: 4096 };
const LIMITS: Record<ThinkJob['purpose'], typeof TOOL_LIMITS> = {
  think: TOOL_LIMITS,
  decide: TOOL_LIMITS,
  preflight: { max_rounds: 3, max_steps: 4, deadline_ms: 60_000, tokens_per_call: 1024 },
  compaction: { max_rounds: 3, max_steps: 4, deadline_ms: 120_000, tokens_per_call: 4096 },
};
export interface ThinkDeps {
  children: Children;
  config: Readonly<Config>;
  log: Logger;
  onChange: () => void;
  /** What a child spent since its previous report, at once (charged to its conversation's budget scopes). */
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
      const entry = { job, settled: false, resolve } as LiveThink;
      try {
        entry.child = this.deps.children.spawn(
          {
            kind: job.purpose,
            ctx: job.ctx,
            parentNode: job.parentNode,
            ...(job.eventId === undefined ? {} : { event: job.eventId }),
            payload: this.payload(job),
          },
          {
            onFrame: (frame) => this.onFrame(entry, frame),
            onUsage: (spent) => this.deps.onSpent(job, spent),
            onExit: (ended, outcome) => this.onExit(entry, ended, outcome),
          },
        );
      } catch (err) {
        resolve({ kind: 'spawn_fail', error: `${job.purpose}: could not start a worker: ${describeError(err)}` });
        return;
      }
      this.live.add(entry);
      const workerPid = entry.child.handle.pid;
      this.deps.log.info('think.spawn', {
        ctx: job.ctx,
        purpose: job.purpose,
        worker_pid: workerPid,
        turn: job.turnId,
      });
      job.onSpawn?.(workerPid);
    });
  }

  /** Conversations a live think child is bound to (the dispatch gate keeps them busy). */
  busyContexts(): string[] {
    return [...this.live].map((t) => t.job.ctx);
  }

  /** Kills the think child running as `turnId` (a preflight whose message was cancelled). */
  killTurn(turnId: string): void {
    for (const t of this.live) {
      if (t.job.turnId === turnId) this.deps.children.kill(t.child, 'its message was cancelled');
    }
  }

  /** Kills the think children a finished turn started: nobody waits for their answer any more. */
  killChildrenOf(parentNode: number): void {
    this.deps.children.killChildrenOf(parentNode, 'its turn ended');
  }

  killAll(): void {
    for (const t of this.live) this.deps.children.kill(t.child, 'drain timeout');
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
    const { child, job } = entry;
    const handlers: FrameHandlers<UpFrame> = {
      ready: () => {},
      idle: () => {}, // the child table takes it (children.ts)
      pong: () => {},
      event: () => {},
      usage: (f) => this.deps.children.account(child, f),
      failed: (f) => this.settle(entry, { kind: 'failed', error: `${job.purpose}: ${f.error}` }),
      tool_request: (f) =>
        child.handle.send({ type: 'tool_result', id: f.id, result: 'no tools in a think child', is_error: true }),
      budget_request: (f) => child.handle.send({ type: 'budget_grant', id: f.id, ok: true, wait_ms: 0 }),
      journal_lookup: (f) => child.handle.send({ type: 'tool_result', id: f.id, result: null, is_error: false }),
      journal_record: () => {},
      turn_done: ({ turn }) => {
        this.deps.log.info('think.done', { ctx: job.ctx, purpose: job.purpose, status: turn.status });
        this.deps.children.account(child, turn.usage);
        if (turn.status === 'completed') this.settle(entry, { kind: 'answer', value: turn.value ?? turn.text ?? null });
        else {
          const suffix = turn.error ? `: ${turn.error}` : '';
          this.settle(entry, { kind: 'failed', error: `${job.purpose} ${turn.status}${suffix}` });
        }
      },
    };
    dispatchFrame(handlers, frame);
  }

  private onExit(entry: LiveThink, ended: EndReason | null, outcome: string): void {
    this.live.delete(entry);
    const { purpose } = entry.job;
    const error = ended ? `${purpose}: ${ended.error}` : `${purpose} worker exited without a result (${outcome})`;
    this.settle(entry, { kind: 'failed', error });
    this.deps.onChange();
  }

  private settle(entry: LiveThink, outcome: ThinkOutcome): void {
    if (entry.settled) return;
    entry.settled = true;
    entry.resolve(outcome);
  }
}
