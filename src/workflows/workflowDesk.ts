// The workflow desk: the definitions in force (configured, then created at run time), run starts keyed by the
// event that asked for them, waiters on runs, and the engine that drives them (producers reference §2.1, §2.9).
import { type StoredDefinition, TERMINAL_RUN, type WorkflowDef, type WorkflowRun } from '../domain/workflow.js';
import type { Logger } from '../obs/log.js';
import type { Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import type { A2aMessage } from '../triggers/a2aStarts.js';
import type { TimerService } from '../triggers/timerService.js';
import { loadWorkflow } from './definitions.js';
import { cancelStoredRun } from './fleetRunCancel.js';
import { messageTakers, signalWaiters } from './kinds/waitOns.js';
import type { StepPorts, StepRunPorts, StepRunStart } from './nodeKind.js';
import { isStartKind } from './nodeKinds.js';
import { orphanReason } from './orphanChildren.js';
import { storedEnd } from './runClaims.js';
import { RunEndWaiters } from './runEndWaiters.js';
import { RunEngine } from './runEngine.js';
import { planStart, type StartOutcome, type StartRequest } from './runStart.js';
import { newRun } from './runState.js';
import type { RunWatch } from './runWatch.js';
import type { StartQueue } from './startQueue.js';
import { SignalMemory } from './waitDeliveries.js';
import { watchWait } from './waitWatch.js';

export type { StartOutcome, StartRequest } from './runStart.js';

export interface DeskDeps {
  store: Pick<Store, 'workflows' | 'memory' | 'fleet'>;
  log: Logger;
  clock(): number;
  ports: StepPorts;
  configured: readonly WorkflowDef[];
  onRunEnded(run: Readonly<WorkflowRun>): void;
  /** Metrics and activity of runs and steps (runWatch.ts). */
  watch?: RunWatch;
  /** A runtime definition was saved (null: deleted): its start nodes are re-armed at once. */
  onDefined?(name: string, def: WorkflowDef | null): Promise<void>;
  /** The supervisor's durable timers (the engine arms each run's next look there). */
  timers?: TimerService;
  /** Keeps starts queued behind a concurrency limit durably (without it they live in memory only). */
  queue?: StartQueue;
  /** A queued start was refused when its turn came (inputs, a gone definition): who waits on its key learns it. */
  onStartRefused?(startKey: string, error: string): void;
  /** A queued start's run began: who waits on its key learns the run (an `a2a` caller's task, to cancel it). */
  onQueuedStarted?(startKey: string, run: string): void;
  /** A named signal: fires the matching signal starts; resolves with the runs it started. */
  onSignal?(name: string, payload: unknown, key: string): Promise<number>;
  /** Test-only crash points of the engine (EngineDeps.killPoint). */
  killPoint?(name: string): void;
  /** observability.log_content: `run.done` carries the run's output. */
  logContent?: boolean;
}

export class WorkflowDesk {
  readonly engine: RunEngine;
  readonly #configured: Map<string, WorkflowDef>;
  readonly #stored = new Map<string, { def: WorkflowDef; version: number }>();
  readonly #versions = new Map<string, number>();
  readonly #waiters = new RunEndWaiters();
  readonly #queued: StartRequest[] = [];
  /** Start keys of queued starts kept in the durable queue. */
  readonly #held = new Set<string>();
  /** The last signal of each name, for `wait on: condition` (memory only). */
  readonly #signals = new SignalMemory();
  #markOpen: () => void = () => {};
  /** Resolves once stored definitions are loaded and live runs restored: starts and reads wait for it. */
  readonly opened = new Promise<void>((resolve) => {
    this.#markOpen = resolve;
  });
  #settleOpen: (opened: boolean) => void = () => {};
  /** Whether the desk opened, once opening is over (false: it failed, or stopped first): nothing hangs on it. */
  readonly #openOutcome = new Promise<boolean>((resolve) => {
    this.#settleOpen = resolve;
  });

  constructor(private readonly deps: DeskDeps) {
    this.#configured = new Map(deps.configured.map((d) => [d.name, d]));
    const sources = {
      runEnded: (id: string, signal: AbortSignal) => this.#runEnded(id, signal),
      runKnown: async (id: string) => (await this.run(id)) !== null,
      ...(deps.ports.awaitSubagent ? { awaitSubagent: deps.ports.awaitSubagent } : {}),
      ...(deps.ports.resources ? { resources: deps.ports.resources } : {}),
      ...(deps.ports.callbacks ? { callbacks: deps.ports.callbacks } : {}),
      memory: deps.store.memory,
      signals: this.#signals,
      deliver: (run: string, channel: string, payload: unknown, key: string) =>
        this.engine.mail
          .deliver(run, { name: channel, payload, key, at: this.deps.clock(), from: null })
          .then((got) => got !== null),
    };
    // The workflow.* step kinds reach other runs through the desk itself.
    const runs: StepRunPorts = {
      signal: (req) => this.signal(req.name, req.payload, req.key, req.run ?? undefined, req.from),
      cancel: (id, reason) => this.cancelRun(id, reason),
    };
    this.engine = new RunEngine({
      ...deps,
      ports: {
        ...deps.ports,
        runs,
        startRun: (req) => this.#startChild(req),
        spend: (run, tokens) => this.engine.mail.charge(run, tokens),
      },
      onRunEnded: (run) => this.#ended(run),
      watchWait: (run, wait, signal) => watchWait(sources, run, wait, signal),
    });
  }

  /** Loads stored definitions (configured ones win), logs each, and restores the live runs. */
  async open(): Promise<void> {
    // Settled true once restored; a failed restore settles it false (first settle wins).
    await this.#restore().finally(() => this.#settleOpen(false));
    // What a previous life left queued is tried again, oldest first; still over the limit, it queues again.
    const held = (await this.deps.queue?.held()) ?? [];
    for (const req of held) this.#held.add(req.startKey);
    // One withdrawn meanwhile (its caller canceled) is not tried.
    for (const req of held) if (this.#held.has(req.startKey)) await this.#startQueued(req);
  }

  async #restore(): Promise<void> {
    for (const stored of await this.deps.store.workflows.listDefinitions()) this.#loadStored(stored);
    for (const def of this.definitions().values()) {
      const starts = Object.values(def.steps).filter((s) => isStartKind(s.kind)).length;
      this.deps.log.info('workflow.loaded', {
        name: def.name,
        hash: def.hash.slice(0, 12),
        steps: Object.keys(def.steps).length,
        starts,
      });
    }
    const runs = await this.engine.restore();
    if (runs > 0) this.deps.log.info('restore.runs', { runs });
    this.#markOpen();
    this.#settleOpen(true);
  }

  #loadStored(stored: StoredDefinition): void {
    this.#versions.set(stored.name, stored.version);
    if (stored.document === null || this.#configured.has(stored.name)) return;
    const loaded = loadWorkflow(stored.document);
    if (loaded.ok) this.#stored.set(stored.name, { def: loaded.def, version: stored.version });
    else this.deps.log.warn('workflow.stored.invalid', { name: stored.name, error: loaded.errors.join('; ') });
  }

  /** Every definition in force by name: configured ones, then the runtime-created ones. */
  definitions(): ReadonlyMap<string, WorkflowDef> {
    const all = new Map(this.#configured);
    for (const [name, { def }] of this.#stored) if (!all.has(name)) all.set(name, def);
    return all;
  }

  /** Starts a run, or finds the one `startKey` already made (reference §2.9; §5 item 16). */
  async start(req: StartRequest): Promise<StartOutcome> {
    await this.opened;
    const def = this.definitions().get(req.workflow);
    if (def && req.version !== undefined && !def.hash.startsWith(req.version))
      return {
        ok: false,
        error: `workflow "${def.name}" hash ${def.hash.slice(0, 12)} does not match the pinned version ${req.version}`,
      };
    const others = this.#queued.filter((q) => q.workflow === req.workflow && q.startKey !== req.startKey).length;
    const plan = planStart(req, def, this.engine.live(), others);
    if (plan.type === 'queue' && req.parent)
      return { ok: false, error: `workflow "${req.workflow}": at its concurrency limit (a child run is not queued)` };
    if (plan.type === 'queue') {
      if (!this.#queued.some((q) => q.startKey === req.startKey)) this.#queued.push(req);
      this.#held.add(req.startKey);
      await this.deps.queue?.hold(req);
      return { ok: false, error: `workflow "${req.workflow}": queued behind its concurrency limit`, queued: true };
    }
    // Ran or refused: a start held from the queue is done with.
    if (this.#held.delete(req.startKey)) await this.deps.queue?.release(req.startKey);
    if (plan.type === 'refuse' || !def) {
      const error = plan.type === 'refuse' ? plan.error : `no such workflow "${req.workflow}"`;
      if (plan.type === 'refuse' && plan.event) {
        const reason = plan.reason ?? error;
        this.deps.log.warn(plan.event, { workflow: req.workflow, reason, error, start_key: req.startKey });
      }
      return { ok: false, error };
    }
    if (plan.replace !== null) await this.engine.cancel(plan.replace, 'replaced by a newer run');
    const origin = {
      ...req,
      id: `${def.name}-${newUlid()}`,
      node: plan.node,
      inputs: plan.inputs,
      payload: req.payload ?? null,
    };
    const fresh = newRun(def, origin, this.deps.clock());
    if (req.parent) fresh.parent = req.parent;
    if (req.deadlineMs != null) fresh.deadlineMs = Math.min(fresh.deadlineMs ?? req.deadlineMs, req.deadlineMs);
    const { run, created } = await this.deps.store.workflows.createRun(fresh);
    if (created) {
      const at = { run: run.id, workflow: def.name, node: plan.node, start_key: req.startKey };
      this.deps.log.info('run.start', { ...at, principal: run.principal });
      this.deps.watch?.started(run);
      this.engine.adopt(run);
    }
    return { ok: true, run: this.engine.get(run.id) ?? run, created };
  }

  /** Fires every armed `once` start node: one run per store (`once:<workflow>.<node>`), skipped in a later life. */
  async fireOnce(): Promise<Readonly<WorkflowRun>[]> {
    const runs: Readonly<WorkflowRun>[] = [];
    for (const def of this.definitions().values()) {
      if (!def.armed) continue;
      for (const step of Object.values(def.steps).filter((s) => s.kind === 'once')) {
        const got = await this.start({
          workflow: def.name,
          node: step.id,
          startKey: `once:${def.name}.${step.id}`,
          principal: null,
          conversation: null,
        });
        if (got.ok && !got.created)
          this.deps.log.info('start.once.skipped', { workflow: def.name, node: step.id, run: got.run.id });
        if (got.ok) runs.push(got.run);
      }
    }
    return runs;
  }

  /**
   * Withdraws the queued starts whose key `which` takes (their caller gave up, e.g. canceled its A2A task): none of
   * them runs, and their durable rows go. Resolves with how many were queued. A start whose turn already came is
   * not stopped here (its run is cancelled as it begins).
   */
  async withdraw(which: (startKey: string) => boolean, reason: string): Promise<number> {
    await this.opened;
    const gone = this.#queued.filter((q) => which(q.startKey));
    for (const req of gone) this.#queued.splice(this.#queued.indexOf(req), 1);
    const keys = new Set([...gone.map((q) => q.startKey), ...[...this.#held].filter(which)]);
    for (const key of keys) {
      if (this.#held.delete(key)) await this.deps.queue?.release(key);
      this.deps.log.info('start.withdrawn', { start_key: key, reason });
    }
    return keys.size;
  }

  /** Starts waiting behind a concurrency limit. */
  get queuedStarts(): number {
    return this.#queued.length;
  }

  /** A run by id: live, else stored. */
  async run(id: string): Promise<Readonly<WorkflowRun> | null> {
    await this.opened;
    return this.engine.get(id) ?? (await this.deps.store.workflows.getRun(id));
  }

  /** Runs whose start key begins with `prefix` (a loop's iterations), by the number after the prefix. */
  async runsByKeyPrefix(prefix: string): Promise<Readonly<WorkflowRun>[]> {
    await this.opened;
    const runs = await this.deps.store.workflows.listRuns({});
    const n = (r: Readonly<WorkflowRun>): number => Number(r.startKey.slice(prefix.length));
    return runs
      .filter((r) => r.startKey.startsWith(prefix))
      .map((r) => this.engine.get(r.id) ?? r)
      .sort((a, b) => n(a) - n(b));
  }

  /** Resolves with the run once it is terminal, or null after `timeoutMs`. */
  async wait(id: string, timeoutMs: number): Promise<Readonly<WorkflowRun> | null> {
    const run = await this.run(id);
    if (run === null || !this.engine.get(id)) return run;
    // A plain timer (not AbortSignal.timeout's unref'd one): a caller waiting here keeps the process alive.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const ended = await this.#waiters.onEnd(id, timeout.signal);
    clearTimeout(timer);
    return ended;
  }

  /** Run `id` once terminal (a `wait on: run` step's watch), null if unknown or `signal` aborts first. */
  async #runEnded(id: string, signal: AbortSignal): Promise<Readonly<WorkflowRun> | null> {
    const run = await this.run(id);
    if (run === null || TERMINAL_RUN.has(run.status)) return run;
    // Live at another replica (its owner): its end is read from the shared store.
    if (!this.engine.get(id)) return this.deps.store.fleet ? storedEnd((at) => this.run(at), id, signal) : run;
    return this.#waiters.onEnd(id, signal);
  }

  /** Saves a new version of a runtime-created definition (`document` null deletes it); live runs keep theirs. */
  async define(name: string, document: Record<string, unknown> | null, def: WorkflowDef | null): Promise<number> {
    await this.opened;
    const version = (this.#versions.get(name) ?? 0) + 1;
    await this.deps.store.workflows.saveDefinition({
      name,
      version,
      document,
      hash: def?.hash ?? null,
      created: this.deps.clock(),
    });
    this.#versions.set(name, version);
    const op = this.#stored.has(name) ? 'update' : 'create';
    if (def === null) {
      this.#stored.delete(name);
      this.deps.log.info('workflow.deleted', { name, version });
    } else {
      this.#stored.set(name, { def, version });
      this.deps.log.info('workflow.defined', { name, hash: def.hash.slice(0, 12), op, version });
    }
    await this.deps.onDefined?.(name, def);
    return version;
  }

  /**
   * Delivers signal `name` (keyed by `key`, so a replay starts nothing twice): to live run `run` when named, held
   * there until a waiter takes it; else to every live run with a step waiting on it (reference §2.12) that `run`,
   * when a predicate, admits (a caller's visible runs); then to the matching signal starts. Resolves with the
   * delivered count.
   */
  async signal(
    name: string,
    payload: unknown,
    key: string,
    run?: string | ((run: Readonly<WorkflowRun>) => boolean),
    from: string | null = null,
  ): Promise<number> {
    await this.opened;
    this.#signals.remember(name, payload, this.deps.clock(), from);
    const targets = typeof run === 'string' ? [run] : signalWaiters(this.engine.live(), name, run ?? (() => true));
    let held = 0;
    for (const id of targets)
      if ((await this.engine.mail.signal(id, { name, payload, key, at: this.deps.clock(), from })) === 'held')
        held += 1;
    return held + ((await this.deps.onSignal?.(name, payload, key)) ?? 0);
  }

  /**
   * Cancels run `id` (the `workflow.cancel` step's and tool's): a live run is cancelled with `reason`, here or, live
   * at another replica, there (fleetRunCancel.ts); an ended one answers its status unchanged; unknown: an error.
   */
  async cancelRun(id: string, reason: string): Promise<{ ok: true; status: string } | { ok: false; error: string }> {
    if (await this.engine.cancel(id, reason)) return { ok: true, status: 'cancelled' };
    return cancelStoredRun(this.deps.store.fleet, id, (at) => this.run(at), reason);
  }

  /** A new A2A message for the steps waiting on its conversation (reference §3.7 step 1): held on each; counted. */
  async takeMessage(msg: A2aMessage): Promise<number> {
    // A restored run's wait takes a message sent while the desk opens (reference §3.7); a failed open takes none.
    if (!(await this.#openOutcome)) return 0;
    let held = 0;
    const from = `a2a:${msg.principal}`;
    for (const { run, channel } of messageTakers(this.engine.live(), msg)) {
      const signal = { name: channel, payload: msg.payload, key: `message:${msg.key}`, at: this.deps.clock(), from };
      // A retried message (its key held already) counts as taken: its sender gets the task, not a turn as well.
      if ((await this.engine.mail.deliver(run, signal)) !== null) held += 1;
    }
    return held;
  }

  /** True when `name` is a configured definition (runtime edits cannot touch it). */
  isConfigured(name: string): boolean {
    return this.#configured.has(name);
  }

  /** A `workflow` step's child run, started (or found again by its key). */
  async #startChild(req: StepRunStart): Promise<{ ok: true; run: string } | { ok: false; error: string }> {
    const { key, node, ...rest } = req;
    const got = await this.start({ ...rest, ...(node !== undefined ? { node } : {}), startKey: key });
    return got.ok ? { ok: true, run: got.run.id } : got;
  }

  #ended(run: Readonly<WorkflowRun>): void {
    // An ended parent cancels the live children it no longer wants (orphanChildren.ts; reference §2.10 cancel_run).
    for (const child of this.engine.live()) {
      const reason = child.parent?.run === run.id ? orphanReason(child, run) : null;
      if (reason !== null) void this.engine.cancel(child.id, reason);
    }
    this.#waiters.ended(run);
    this.deps.onRunEnded(run);
    const next = this.#queued.findIndex((q) => q.workflow === run.workflow);
    const [queued] = next < 0 ? this.#queued.splice(0, 1) : this.#queued.splice(next, 1);
    if (queued) void this.#startQueued(queued);
  }

  /** A queued start's turn came: a refusal now reaches whoever waits on its key (an `a2a` caller's task). */
  async #startQueued(req: StartRequest): Promise<void> {
    const got = await this.start(req);
    if (got.ok) this.deps.onQueuedStarted?.(req.startKey, got.run.id);
    else if (!got.queued) this.deps.onStartRefused?.(req.startKey, got.error);
  }

  async stop(): Promise<void> {
    this.#settleOpen(false);
    await this.engine.stop();
    this.#waiters.release((id) => this.run(id));
  }
}
