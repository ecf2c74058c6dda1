// The process side of a subagent: its worker in the child table (own process group, pings, deadline, kill ladder),
// its frames (internal tools, per-call budget admission, usage, each run's end) and its kernel caps. Decides nothing
// about records or waiters: it reports runs and the exit to the desk (reference §1.4, §1.7, §1.11).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { promisify } from 'node:util';
import type { CallGrant } from '../budget/ledger.js';
import type { Config } from '../config/types.js';
import type { ThinkJob } from '../domain/job.js';
import type { SubagentRecord } from '../domain/subagent.js';
import { describeError } from '../errors.js';
import type { Activity } from '../obs/activity.js';
import type { Logger } from '../obs/log.js';
import { dispatchFrame, type FrameHandlers, type TurnResult, type UpFrame } from '../protocol/frames.js';
import type { Usage } from '../protocol/messages.js';
import type { JournalPort } from '../store/store.js';
import { type Child, type Children, DEADLINE_GRACE_MS, type EndReason } from '../supervisor/children.js';
import { journalFailed, lookUpCall, recordCall } from '../supervisor/journalFrames.js';
import { runInternalTool } from '../tools/internalTools.js';
import type { ToolSurface } from '../tools/surface.js';
import type { InternalToolHost, ToolCaller, ToolResult } from '../tools/toolOutcome.js';
import { endTurn, type TurnEnd, turnEnd, whenTurnEnds } from '../tools/turnEnd.js';
import type { TimerService } from '../triggers/timerService.js';
import type { SubagentDeskPort } from './subagentHost.js';
import { subagentPayload, subagentTools } from './subagentPayload.js';
import { callKey } from './subagentRecord.js';
import { SubagentSleeps } from './subagentSleep.js';

const run = promisify(execFile);

export interface RunnerDeps {
  config: Readonly<Config>;
  log: Logger;
  now(): number;
  children: Children;
  tools: ToolSurface | undefined;
  memory: InternalToolHost['memory'];
  /** Per-call admission against the scopes of the conversation that started the subagent. */
  admit(ctx: string, principal: string | null, estimate: number): CallGrant;
  /**
   * Spend, charged at once to the scopes it was admitted against: that conversation, principal and instance, and
   * the workflow run `run` whose step started it.
   */
  spent(ctx: string, principal: string | null, usage: Usage, run?: string): void;
  think(job: ThinkJob): Promise<ToolResult>;
  /** The tool journal its MCP calls are looked up in and recorded to; absent: none (every call is sent). */
  journal?: JournalPort;
  /** A progress frame of the worker (the live activity of its caller's conversation). */
  progress?(live: LiveSubagent, event: string, fields: Record<string, unknown>): void;
  /** The supervisor's durable timers: `sleep` waits on one (subagentSleep.ts); absent: an in-memory timer. */
  timers?: TimerService;
}

/** What the runner reports to the desk. */
export interface RunnerEvents {
  /** One run ended (`turn_done`); a one-shot subagent's only run. */
  onRun(live: LiveSubagent, result: TurnResult): void;
  onUsage(live: LiveSubagent, spent: Usage): void;
  /** The worker is gone; `failed`: the worker's own `failed` frame, if it sent one. */
  onExit(live: LiveSubagent, ended: EndReason | null, outcome: string, failed: string | null): void;
}

/** One running subagent process. */
export interface LiveSubagent {
  record: SubagentRecord;
  child: Child;
  /** Internal tools it may round-trip. */
  internal: ReadonlySet<string>;
  /** The worker is inside a run (false: a warm session idle between runs). */
  running: boolean;
  /** Injected messages not started yet. */
  queued: number;
  /** Set by subagent.kill: the reason, which wins over the child's own outcome. */
  killed: string | null;
  failed: string | null;
  /** Its end was recorded (once). */
  done: boolean;
  parked: Set<NodeJS.Timeout>;
  /** Its end as a caller: nested sync children and waits end with it. */
  end: TurnEnd;
  /** Its kernel caps wait for its first `ready` frame. */
  capsPending: boolean;
  /** Its live activity, published as its caller's conversation's (subagentActivity.ts). */
  activity?: Activity;
}

export class SubagentRunner {
  private readonly sleeps: SubagentSleeps | null;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly events: RunnerEvents,
    private readonly desk: SubagentDeskPort,
  ) {
    this.sleeps = deps.timers ? new SubagentSleeps(deps.timers, (handle) => desk.alive(handle)) : null;
  }

  /** Deletes the stored sleeps of a subagent that ended. */
  forgetSleeps(handle: string): void {
    this.sleeps?.forget(handle).catch((err: unknown) => {
      this.deps.log.error('timer.cancel.fail', { owner: `subagent:${handle}`, err: describeError(err) });
    });
  }

  /** Spawns the record's worker; throws when it cannot start (nothing is left running). */
  start(record: SubagentRecord): LiveSubagent {
    const { config, tools } = this.deps;
    const nested = record.requested_by.depth < config.limits.subagents.depth;
    const granted = subagentTools(tools?.plan(), record, nested);
    // A code tool a permission rule could match needs the supervisor's judgement, which subagents do not get.
    const gated = new Set(tools?.gatedCodeTools() ?? []);
    granted.code = granted.code.filter((name) => !gated.has(name));
    granted.tools = granted.tools.filter((t) => !gated.has(t.name));
    const payload = subagentPayload(config, record, granted, this.deps.now());
    if (tools) {
      payload.mcp_servers = tools.serverSpecs(payload.turn.mcp_routes);
      payload.code_tools_module = tools.codeToolsModule;
    }
    let live: LiveSubagent | undefined;
    const { limits, priority } = record.spec;
    // A worker under RLIMIT_AS, RLIMIT_CPU or a niceness never serves another turn (reference §1.4 "Payload").
    const capped = priority !== 'normal' || limits.memory_bytes !== undefined || limits.cpu_seconds !== undefined;
    const spec = { kind: 'subagent' as const, ctx: record.requested_by.ctx, parentNode: null, payload };
    const child = this.deps.children.spawn(
      { ...spec, ...(capped ? { reuse: false as const } : {}) },
      {
        onFrame: (frame) => live && this.onFrame(live, frame),
        onUsage: (spent) => live && this.events.onUsage(live, spent),
        onExit: (ended, outcome) => {
          if (!live) return;
          for (const timer of live.parked) clearTimeout(timer);
          endTurn(live.end);
          this.events.onExit(live, ended, outcome, live.failed);
        },
      },
    );
    live = {
      ...{ record, child, internal: new Set(granted.internal), running: true, queued: 0 },
      ...{ killed: null, failed: null, done: false, parked: new Set(), end: turnEnd(), capsPending: capped },
    };
    return live;
  }

  /** Re-arms the watchdog's deadline for a run starting now; null: idle between runs. */
  arm(live: LiveSubagent, running: boolean): void {
    live.running = running;
    const { deadline_ms } = live.record.spec.limits;
    live.child.handle.markRunning(running ? this.deps.now() + deadline_ms + DEADLINE_GRACE_MS : null);
  }

  /** Starts the next queued run under its deadline, or idles; `paused`: the worker holds it, so nothing is armed. */
  armNext(live: LiveSubagent, paused: boolean): void {
    const next = live.queued > 0 && !paused;
    if (next) live.queued--;
    this.arm(live, next);
  }

  /**
   * RLIMIT_CPU and RLIMIT_AS through util-linux `prlimit`, the niceness through os.setPriority, all best effort
   * (reference §1.4 "Payload"), off the reactor (`subagent.caps` once settled). V8 reserves far more address space
   * than it uses (~700 MB at start, its code range among it), so the caps wait for the worker's `ready` frame: a
   * cap set before that kills a fresh node ("Fatal process OOM in CodeRange"). RLIMIT_AS is what the running
   * worker has mapped plus `limits.memory`; growing past that fails its allocations (V8 aborts the worker).
   */
  private async applyCaps(live: LiveSubagent): Promise<void> {
    live.capsPending = false;
    const { pid } = live.child.handle;
    const { priority, limits } = live.record.spec;
    const applied: Record<string, unknown> = { handle: live.record.handle, pid };
    const nice = priority === 'low' ? 10 : priority === 'high' ? -5 : 0;
    if (nice !== 0) applied.nice = await tryApply(async () => setPriority(pid, nice));
    const { cpu_seconds: cpu, memory_bytes: memory } = limits;
    if (cpu !== undefined) applied.cpu = await tryApply(() => prlimit(pid, `--cpu=${cpu}:${cpu + 5}`));
    if (memory !== undefined) {
      applied.memory = await tryApply(async () => prlimit(pid, `--as=${(await mappedBytes(pid)) + memory}`));
    }
    this.deps.log.info('subagent.caps', applied);
  }

  private onFrame(live: LiveSubagent, frame: UpFrame): void {
    const { child, record } = live;
    const failed = journalFailed(this.deps.log, record.requested_by.ctx);
    const handlers: FrameHandlers<UpFrame> = {
      ready: () => {
        if (live.capsPending) void this.applyCaps(live);
      },
      idle: () => {}, // the child table takes it (children.ts)
      pong: () => {},
      event: (f) => this.deps.progress?.(live, f.event, f.fields),
      usage: (f) => this.deps.children.account(child, f),
      failed: (f) => {
        live.failed = f.error;
      },
      tool_request: (f) => this.serveTool(live, f),
      // Its MCP calls are journaled under its run's keys, as a turn's (reference §5 item 2, interfaces §4.4).
      journal_lookup: (f) =>
        void lookUpCall(this.deps.journal, f, failed).then((result) => {
          if (child.handle.alive) child.handle.send({ type: 'tool_result', id: f.id, result, is_error: false });
        }),
      journal_record: (f) => recordCall(this.deps.journal, f, this.deps.now(), failed),
      budget_request: (f) => {
        const { ctx, principal } = record.requested_by;
        // A subtree past its ceiling stops the spender, as an exhausted window would (reference §5 item 24).
        const over = this.desk.ceiling(record);
        const grant = over ? { ok: false, wait_ms: 0, reason: over } : this.deps.admit(ctx, principal, f.estimate);
        child.handle.send({ type: 'budget_grant', id: f.id, ...grant });
      },
      turn_done: (f) => this.events.onRun(live, f.turn),
    };
    dispatchFrame(handlers, frame);
  }

  /** A subagent's internal tool call, run against its own host (its memory, think, and subagent.* within depth). */
  private serveTool(live: LiveSubagent, frame: Extract<UpFrame, { type: 'tool_request' }>): void {
    const { record, child } = live;
    const reply = (r: ToolResult): void => {
      if (child.handle.alive) child.handle.send({ type: 'tool_result', id: frame.id, ...r });
    };
    if (frame.check_only || !live.internal.has(frame.name)) {
      reply({ result: `tool "${frame.name}" is not granted to subagent ${record.handle}`, is_error: true });
      return;
    }
    const runId = `${record.handle}.${record.attempt}`;
    const caller: ToolCaller = {
      conversation: record.requested_by.ctx,
      principal: record.requested_by.principal,
      turnId: runId,
      depth: 0,
      kind: 'conversation',
      call: callKey(record, frame.index ?? frame.id),
      subagent: { handle: record.handle, depth: record.requested_by.depth },
    };
    const outcome = runInternalTool(frame.name, frame.args, caller, this.host(live, runId));
    if (outcome.kind === 'ready') reply(outcome);
    else if (outcome.kind === 'defer') outcome.promise.then(reply, (err: unknown) => reply(failure(err)));
    else if (frame.name === 'sleep' && this.sleeps) this.sleepDurably(this.sleeps, live, caller, outcome.wakeAt, reply);
    else {
      const timer = setTimeout(
        () => {
          live.parked.delete(timer);
          reply(outcome.complete(this.deps.now()));
        },
        Math.max(0, outcome.wakeAt - this.deps.now()),
      );
      live.parked.add(timer);
    }
  }

  /**
   * `sleep` on a stored timer keyed by the call: a respawned subagent making the same call waits for the due time
   * its previous life stored (`subagent.sleep {resumed: true}`), and `slept_ms` counts from that life's call.
   */
  private sleepDurably(
    sleeps: SubagentSleeps,
    live: LiveSubagent,
    caller: ToolCaller,
    wakeAt: number,
    reply: (r: ToolResult) => void,
  ): void {
    const { handle } = live.record;
    const wake = (since: number) =>
      reply({ result: { slept_ms: Math.max(0, this.deps.now() - since) }, is_error: false });
    sleeps.park(handle, caller.call ?? `${handle}#${wakeAt}`, wakeAt, wake).then(
      ({ resumed, due }) => this.deps.log.info('subagent.sleep', { handle, due, resumed }),
      (err: unknown) =>
        reply({ result: `sleep: its timer could not be stored (${describeError(err)})`, is_error: true }),
    );
  }

  /** The internal tool host of one subagent: memory, think, finish and (within depth) subagent.*. */
  private host(live: LiveSubagent, runId: string): InternalToolHost {
    const { config, now } = this.deps;
    let thinks = 0;
    const noPlan = (): never => {
      throw new Error('plan tools are not available to subagents');
    };
    return {
      now,
      instance: config.agent.name,
      memory: this.deps.memory,
      conversation: noPlan,
      setPlan: noPlan,
      planMaxItems: config.context.plan.max_items,
      maxMessageDepth: config.limits.max_message_depth,
      askHumanFallback: 'fail',
      humanChannel: false,
      think: (req) =>
        this.deps.think({
          purpose: req.purpose,
          ctx: req.caller.conversation,
          parentNode: live.child.node,
          system: req.system,
          messages: req.messages.map((m) => ({ role: m.role, text: m.text, ts: now() })),
          ...(req.schema ? { schema: req.schema } : {}),
          turnId: `${runId}.think-${++thinks}`,
        }),
      subagents: this.desk.forTurn((cleanup) => whenTurnEnds(live.end, cleanup)),
    };
  }
}

async function prlimit(pid: number, limit: string): Promise<void> {
  await run('prlimit', [`--pid=${pid}`, limit], { timeout: 2_000 });
}

/** The address space `pid` has mapped now (VmSize). */
async function mappedBytes(pid: number): Promise<number> {
  const kb = /VmSize:\s*(\d+)\s*kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmSize for pid ${pid}`);
  return Number(kb) * 1024;
}

async function tryApply(apply: () => Promise<void>): Promise<string> {
  try {
    await apply();
    return 'applied';
  } catch (err) {
    return `not applied: ${describeError(err)}`;
  }
}

function failure(err: unknown): ToolResult {
  return { result: `tool failed: ${describeError(err)}`, is_error: true };
}
