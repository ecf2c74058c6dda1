// Every worker child the supervisor runs — conversation turns and think children (preflight, compaction, think,
// decide) — in one table: spawn from the pool, the one usage rule, cancel and the kill ladder, and the liveness
// watchdog (reference §1.6) over children and spares. Decides nothing about turns, tools or budgets: each child's
// hooks do.
import { describeError } from '../errors.js';
import type { ChildTracing } from '../obs/childTraces.js';
import type { Logger } from '../obs/log.js';
import { knownSecrets, redactDeep } from '../obs/redactor.js';
import type { SpawnPayload, UpFrame } from '../protocol/frames.js';
import type { Usage } from '../protocol/messages.js';
import type { TurnErrorKind, TurnStatus } from '../protocol/status.js';
import { addUsage, hasUsage, usageSince } from '../protocol/usage.js';
import { classifyChild, DEFAULT_LIVENESS, type Liveness, type LivenessLimits, pingIntervalMs } from './liveness.js';
import type { WorkerHandle } from './workerHandle.js';
import type { WorkerPool } from './workerPool.js';

export type ChildKind = 'turn' | 'preflight' | 'compaction' | 'think' | 'decide' | 'subagent';

/** Why the supervisor ended a child (cancel, deadline, unhealthy, a `failed` frame). */
export interface EndReason {
  status: TurnStatus;
  error: string;
  kind?: TurnErrorKind;
}

export interface ChildHooks {
  /** Every frame but `pong` and `usage` (the manager handles those). */
  onFrame(frame: UpFrame): void;
  /** The usage rule: each increment of the child's reported running totals, charged at once. */
  onUsage(spent: Usage): void;
  /**
   * Once, after the process is gone and its frames were delivered. `outcome`: "exit code 0", "signal SIGKILL";
   * `exit.spawnError`: the errno name when the process never started (EMFILE, …).
   */
  onExit(ended: EndReason | null, outcome: string, exit: ChildExit): void;
}

/** How a child's process ended. */
export interface ChildExit {
  code: number | null;
  signal: string | null;
  spawnError?: string | null;
}

export interface ChildSpec {
  kind: ChildKind;
  /** The conversation it works for. */
  ctx: string;
  /** The turn that started it (a think child dies with it); null for a turn or a preflight. */
  parentNode: number | null;
  /** The inbox event it works for (a turn, a preflight); traces join that message's trace. */
  event?: string;
  payload: SpawnPayload;
  /** false: the worker never goes back to the pool (it carries kernel caps, a subagent's RLIMIT_AS or nice). */
  reuse?: false;
}

export interface Child {
  readonly node: number;
  readonly kind: ChildKind;
  readonly ctx: string;
  readonly parentNode: number | null;
  readonly event: string | null;
  readonly handle: WorkerHandle;
  readonly startedAt: number;
  /** The usage totals the child reported so far (usage frames, then its result). */
  reported: Usage;
  endReason: EndReason | null;
}

export interface ChildrenDeps {
  pool: WorkerPool;
  log: Logger;
  now(): number;
  limits?: LivenessLimits;
}

/** Grace between a cancel frame and the killpg; after the deadline before the watchdog kills. */
const CANCEL_GRACE_MS = 2_000;
export const DEADLINE_GRACE_MS = 5_000;
/** How long a stop waits for the workers' last stderr lines. */
const WORKER_OUTPUT_MS = 1_000;

interface Entry {
  child: Child;
  hooks: ChildHooks;
  timers: NodeJS.Timeout[];
}

export class Children {
  private readonly live = new Map<number, Entry>();
  private nextNode = 1;
  private readonly limits: LivenessLimits;
  private readonly interval: number;
  private lastCheck: number | null = null;
  private watch: NodeJS.Timeout | null;
  private tracing: ChildTracing | null = null;

  constructor(private readonly deps: ChildrenDeps) {
    this.limits = deps.limits ?? DEFAULT_LIVENESS;
    this.interval = pingIntervalMs(this.limits);
    this.watch = setInterval(() => this.check(), this.interval);
    this.watch.unref();
  }

  /** With tracing on: which trace each child joins (obs/childTraces.ts), set before its spawn frame goes. */
  traceWith(tracing: ChildTracing): void {
    this.tracing = tracing;
  }

  /** Starts a worker on `spec.payload`; throws (with nothing left running) when it cannot be started. */
  spawn(spec: ChildSpec, hooks: ChildHooks): Child {
    const node = this.nextNode++;
    const handle = this.deps.pool.take({
      onFrame: (frame) => this.onFrame(node, frame),
      onClose: (code, signal) => this.onClose(node, code, signal),
      onProtocolError: (err) => this.deps.log.warn('loop.error', { node, ctx: spec.ctx, kind: spec.kind, err }),
    });
    const now = this.deps.now();
    const child: Child = {
      node,
      kind: spec.kind,
      ctx: spec.ctx,
      parentNode: spec.parentNode,
      event: spec.event ?? null,
      handle,
      startedAt: now,
      reported: { input_tokens: 0, output_tokens: 0 },
      endReason: null,
    };
    this.live.set(node, { child, hooks, timers: [] });
    try {
      // Every secret, principals' tokens included: the worker's stderr is its own (inherited), and a model error that
      // echoes a caller's token must be redacted there too (docs/guide/configuration.md, secrets). Frames are redacted again on receipt.
      const reuse = spec.reuse !== false && this.deps.pool.mayReuse(handle);
      this.tracing?.spawned(child, spec.payload);
      for (const server of spec.payload.mcp_servers) handle.mcpSpecs.add(JSON.stringify(server));
      handle.send({ type: 'spawn', ...spec.payload, redact: knownSecrets(), reuse });
    } catch (err) {
      this.live.delete(node);
      this.tracing?.gone(child, 'the worker could not be started');
      handle.kill();
      throw err;
    }
    handle.markRunning(now + spec.payload.limits.deadline_ms + DEADLINE_GRACE_MS);
    this.deps.pool.noteDemand(this.live.size);
    return child;
  }

  /**
   * The one usage rule, for every kind of child: a report carries running totals; what grew since the previous
   * report is charged at once (so a killed child has been charged what it reported).
   */
  account(child: Child, totals: Usage): void {
    const spent = usageSince(totals, child.reported);
    child.reported = addUsage(child.reported, spent);
    if (hasUsage(spent)) this.live.get(child.node)?.hooks.onUsage(spent);
  }

  /** Asks the child to stop (it seals and reports); its process group dies after a grace. */
  cancel(child: Child, reason: string, ended: EndReason = { status: 'cancelled', error: reason }): void {
    child.endReason ??= ended;
    child.handle.send({ type: 'cancel', reason });
    this.live.get(child.node)?.timers.push(setTimeout(() => this.kill(child, 'cancel grace elapsed'), CANCEL_GRACE_MS));
  }

  /** Ends the child now: why (when none was given yet), then the killpg. */
  end(child: Child, ended: EndReason): void {
    child.endReason ??= ended;
    this.kill(child, ended.error);
  }

  /** SIGKILL the child's process group. */
  kill(child: Child, reason: string): void {
    if (!child.handle.alive) return;
    const { node, kind, ctx } = child;
    this.deps.log.warn('turn.kill', { node, kind, ctx, worker_pid: child.handle.pid, reason });
    child.handle.kill();
  }

  /** Kills the children `parentNode` started (a think child dies with the turn that asked for it). */
  killChildrenOf(parentNode: number, reason: string): void {
    for (const { child } of this.live.values()) if (child.parentNode === parentNode) this.kill(child, reason);
  }

  /** Stops the watchdog and kills the spares (a drain); live children end through their own kills. */
  close(): Promise<void> {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
    this.deps.pool.close();
    // The workers' last stderr lines reach the log before a stop goes on (bounded: a pipe a grandchild holds).
    return this.deps.pool.outputRead(WORKER_OUTPUT_MS);
  }

  /** The watchdog: classify each child and spare; act on the unhealthy, ping the rest. */
  private check(): void {
    const now = this.deps.now();
    // A supervisor that stalled itself has not read its children's answers yet: ping, and judge next time.
    const stalled = this.lastCheck !== null && now - this.lastCheck > 2 * this.interval;
    this.lastCheck = now;
    for (const { child } of this.live.values()) {
      const verdict = stalled ? ({ kind: 'healthy' } as const) : classifyChild(child.handle.vitals, now, this.limits);
      if (verdict.kind === 'healthy') child.handle.ping();
      else if (child.handle.alive) this.unhealthy(child, verdict);
    }
    if (!stalled) this.deps.pool.check(now);
  }

  /** `child.unhealthy`, a cancel naming the health, and the killpg at once (reference §1.6). */
  private unhealthy(child: Child, verdict: Extract<Liveness, { kind: 'unhealthy' }>): void {
    const { node, kind, ctx } = child;
    const { health, detail } = verdict;
    this.deps.log.warn('child.unhealthy', { node, kind, ctx, worker_pid: child.handle.pid, health, detail });
    const ended: EndReason =
      health === 'deadline_exceeded'
        ? { status: 'deadline', error: detail }
        : { status: 'failed', error: `worker unhealthy (${health}): ${detail}`, kind: 'worker' };
    child.endReason ??= ended;
    child.handle.send({ type: 'cancel', reason: health });
    this.kill(child, detail);
  }

  private onFrame(node: number, received: UpFrame): void {
    const entry = this.live.get(node);
    if (!entry) return;
    // Redacted once, where worker text enters the supervisor: task status, memory, notes and folds all read it from
    // here (reference §1.5 step 2). The worker redacts too, but only with its own credentials.
    const frame = redactDeep(received);
    try {
      if (frame.type === 'usage') this.account(entry.child, frame);
      else if (frame.type === 'idle') this.onIdle(entry, frame.rss);
      else entry.hooks.onFrame(frame);
    } catch (err) {
      const { kind, ctx } = entry.child;
      const error = `handling a ${frame.type} frame: ${describeError(err)}`;
      this.deps.log.error('loop.error', { node, kind, ctx, err: error });
    }
  }

  /**
   * The worker finished its turn and cleared it: its child ends here as if it exited 0, and the process goes back
   * to the pool, unless the turn was being ended (its process group dies, as a cancel promises) or the worker is
   * past its turns or memory (replaced).
   */
  private onIdle(entry: Entry, rssBytes: number): void {
    const { child } = entry;
    const { node, kind, ctx, handle } = child;
    const next = this.deps.pool.afterTurn(handle, rssBytes, child.endReason !== null);
    if (next.kind === 'recycle') {
      this.deps.log.debug('worker.recycle', { node, kind, ctx, worker_pid: handle.pid, reason: next.reason });
      handle.kill();
      return;
    }
    handle.detach();
    this.settle(entry, { code: 0, signal: null, spawnError: null }, 'idle after its turn', true);
    this.deps.pool.release(handle);
  }

  private onClose(node: number, code: number | null, signal: NodeJS.Signals | null): void {
    const entry = this.live.get(node);
    if (!entry) return;
    const exit = { code, signal, spawnError: entry.child.handle.spawnError };
    this.settle(entry, exit, code !== null ? `exit code ${code}` : `signal ${signal}`);
  }

  /** The child is over (its process exited, or went idle): its hooks hear it once, and its think children die. */
  private settle(entry: Entry, exit: ChildExit, outcome: string, idle = false): void {
    const { child, hooks, timers } = entry;
    const { node, kind, ctx } = child;
    const { code, signal, spawnError } = exit;
    const fields = { node, worker_pid: child.handle.pid, kind, ctx, code, signal, spawn_error: spawnError };
    // A reused worker's child ends without its process: `idle` says the process stays for another turn.
    this.deps.log.info('child.exit', idle ? { ...fields, idle } : fields);
    for (const t of timers) clearTimeout(t);
    this.live.delete(node);
    this.deps.pool.noteDemand(this.live.size);
    this.tracing?.gone(child, child.endReason?.error ?? (code === 0 || idle ? null : outcome));
    hooks.onExit(child.endReason, outcome, exit);
    this.killChildrenOf(node, 'its turn ended');
  }
}
