// The workflow engine's shell (producers reference §2.6-2.11): holds the live runs, drives each through the pure
// scheduler (scheduler.ts) and transitions (runState.ts), and commits every change through the store before it
// acts on it. The only writer of run records; one drive loop per run at a time.
import { type StepWait, TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import type { Logger } from '../obs/log.js';
import type { Store } from '../store/store.js';
import type { TimerService } from '../triggers/timerService.js';
import { stepDefAt } from './nesting.js';
import { advanceNest } from './nestMoves.js';
import { ENGINE_STOPPED, type StepPorts, type StepResult } from './nodeKind.js';
import { nodeKind } from './nodeKinds.js';
import { findOrphans } from './orphanChildren.js';
import { claimEvery, fencedThen, readyEach } from './runClaims.js';
import { RunMailbox } from './runMailbox.js';
import {
  applyResult,
  beginStep,
  endRun,
  pruneSteps,
  type RunEvent,
  replayInFlight,
  resolveDue,
  settleWait,
} from './runState.js';
import { type RunWatch, stepMove } from './runWatch.js';
import { nextRunDecision } from './scheduler.js';
import { executeStep } from './stepExecution.js';
import { readSpills } from './stepSpill.js';
import { WaitWatches } from './waitWatches.js';
import { WakeTimers } from './wakeTimers.js';

/** Decisions applied per drive before yielding to the event loop (a long inline run does not starve the rest). */
const DECISIONS_PER_SLICE = 256;

export { ENGINE_STOPPED } from './nodeKind.js';

export interface EngineDeps {
  store: Pick<Store, 'workflows' | 'memory'>;
  log: Logger;
  clock(): number;
  ports: StepPorts;
  /** The supervisor's durable timers: a run's next look (retry backoff, sleep, deadline) is a stored row there. */
  timers?: TimerService;
  /** Called once per run that reaches a terminal status (after it is committed). */
  onRunEnded(run: Readonly<WorkflowRun>): void;
  /** Metrics and activity of runs and steps (runWatch.ts). */
  watch?: RunWatch;
  /**
   * Watches what a suspended `wait` step waits on outside its run (another run, a subagent) and resolves with the
   * step's result, or null when `signal` aborts first (the run ended, the engine stopped).
   */
  watchWait?(run: Readonly<WorkflowRun>, wait: StepWait, signal: AbortSignal): Promise<StepResult | null>;
  /**
   * Test-only crash points (`AGENTD_TEST_KILL_AT`), each also as `<point>@<step>`: `step.running` (the step's
   * `running` record committed, before its effect), `step.before_done` (the effect returned, its end not yet
   * committed), `step.after_done` (its end committed, before the next step begins).
   */
  killPoint?(name: string): void;
  /** observability.log_content: `run.done` carries the run's output. */
  logContent?: boolean;
}

interface InFlight {
  attempt: number;
  controller: AbortController;
  done: Promise<void>;
}

export class RunEngine {
  readonly #live = new Map<string, WorkflowRun>();
  readonly #cancels = new Map<string, AbortController>();
  readonly #driving = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  /** The waits being watched; what they found is applied by the run's next pass. */
  readonly #waits: WaitWatches;
  /** Effect steps executing off the drive loop, by run then step: aborted once their step no longer runs. */
  readonly #inflight = new Map<string, Map<string, InFlight>>();
  /** Results of effect steps that finished, applied by their run's next pass. */
  readonly #finished = new Map<string, Array<{ step: string; attempt: number; result: StepResult }>>();
  readonly #timers: WakeTimers;
  /** Signals, deliveries for waiting steps and spend that reach live runs from outside (runMailbox.ts). */
  readonly mail: RunMailbox;
  #stopped = false;
  #stopClaims: (() => void) | undefined;

  constructor(private readonly deps: EngineDeps) {
    const durable = deps.timers ? { service: deps.timers, log: deps.log } : undefined;
    this.#timers = new WakeTimers(deps.clock, (id) => this.drive(id), durable);
    this.#waits = new WaitWatches(deps.watchWait, (id) => this.drive(id));
    this.mail = new RunMailbox({
      live: (id) => this.#live.get(id),
      save: this.#save,
      drive: (id) => this.drive(id),
      fail: (run, error) => this.#end(run, endRun(run, 'failed', error, null, this.deps.clock())),
      log: deps.log,
    });
  }

  /** Live runs in memory (a copy of none: callers must not mutate). */
  live(): readonly Readonly<WorkflowRun>[] {
    return [...this.#live.values()];
  }

  get(id: string): Readonly<WorkflowRun> | undefined {
    return this.#live.get(id);
  }

  /**
   * Loads the stored live runs, replays their in-flight steps (reference §2.11) and drives them. Replicas: only the
   * runs this replica claims (nobody else owns them live); it claims again every second, adopting a dead one's.
   */
  async restore(): Promise<number> {
    const { workflows } = this.deps.store;
    workflows.onRunLost?.((id) => this.#lost(id));
    const runs = await (workflows.claimRuns ? workflows.claimRuns() : workflows.listRuns({ live: true }));
    await this.#take(runs);
    const claim = workflows.claimRuns?.bind(workflows);
    if (claim) this.#stopClaims = claimEvery(claim, (more) => this.#take(more), this.deps.log);
    return runs.length;
  }

  async #take(claimed: WorkflowRun[]): Promise<void> {
    const { workflows } = this.deps.store;
    const ready = async (run: WorkflowRun) => {
      // One claimed while still live here was lost unnoticed (its hold lapsed): this copy is stale, the stored one not.
      this.#lost(run.id);
      const events = replayInFlight(run, this.deps.clock());
      this.#log(run, events);
      if (events.length > 0) await this.#save(run);
      await this.#timers.repairAtRestore(run);
    };
    const [runs, giveBack] = await readyEach(claimed, ready, workflows.releaseRun?.bind(workflows), this.deps.log);
    const orphans = await findOrphans(runs, (id) => workflows.getRun(id)).catch(giveBack);
    for (const run of runs) if (!orphans.has(run.id)) this.#adopt(run);
    this.#timers.restored();
    // Cancelled once the rest are live: the cancel cascades to their own children (the desk's run end).
    for (const run of runs) {
      const reason = orphans.get(run.id);
      if (reason === undefined) continue;
      const { step, run: parent } = run.parent ?? {};
      this.deps.log.warn('restore.child.cancelled', { run: run.id, parent, step, reason });
      this.#live.set(run.id, run);
      this.#cancels.set(run.id, new AbortController());
      await this.cancel(run.id, reason);
    }
  }

  /** A save refused by the fence: another replica owns the run now; this one stops driving it and forgets it. */
  #lost(id: string, copy = this.#live.get(id)): void {
    if (copy === undefined || this.#live.get(id) !== copy || !this.#live.delete(id)) return;
    this.#waits.drop(id);
    this.#finished.delete(id);
    for (const flight of this.#inflight.get(id)?.values() ?? []) flight.controller.abort('run lease lost');
    this.#inflight.delete(id);
    this.#cancels.get(id)?.abort('run lease lost');
    this.#cancels.delete(id);
    this.deps.log.info('lease.work_stopped', { run: id });
  }

  /** Takes a committed run into the live set and drives it. */
  adopt(run: WorkflowRun): void {
    this.#adopt(run);
  }

  #adopt(run: WorkflowRun): void {
    if (TERMINAL_RUN.has(run.status)) return;
    this.#live.set(run.id, run);
    this.#cancels.set(run.id, new AbortController());
    this.#watchWaits(run);
    this.drive(run.id);
  }

  /** Applies what watches found for `run`: each to its step if that step still waits on the same wait. */
  async #settleArrived(run: WorkflowRun): Promise<void> {
    const arrived = this.#waits.take(run.id);
    const finished = this.#finished.get(run.id) ?? [];
    if (arrived.length === 0 && finished.length === 0) return;
    this.#finished.delete(run.id);
    const now = this.deps.clock();
    const events = arrived.flatMap(({ step, wait, result }) =>
      run.steps[step]?.wait === wait ? settleWait(run, step, result, now) : [],
    );
    let suspended = false;
    const applied: string[] = [];
    for (const { step, attempt, result } of finished) {
      // A step dropped or restarted since (its instance ended, a retry) is not this result's any more.
      if (run.steps[step]?.status !== 'running' || run.steps[step]?.attempt !== attempt || TERMINAL_RUN.has(run.status))
        continue;
      this.#killPoint('step.before_done', step);
      events.push(...applyResult(run, step, result, now));
      applied.push(step);
      suspended ||= result.type === 'suspend';
    }
    if (events.length === 0) return;
    if (TERMINAL_RUN.has(run.status)) await this.#end(run, events);
    else await this.#commit(run, events);
    for (const step of applied) this.#killPoint('step.after_done', step);
    if (suspended) this.#watchWaits(run);
  }

  /** Cancels a live run: in-flight steps are aborted and marked cancelled; false when it is not live. */
  async cancel(id: string, reason: string): Promise<boolean> {
    const run = this.#live.get(id);
    if (!run) return false;
    this.#cancels.get(id)?.abort(reason);
    await this.#end(run, endRun(run, 'cancelled', reason, null, this.deps.clock()));
    return true;
  }

  /** Schedules a pass over run `id` (coalesced with one already running). */
  drive(id: string): void {
    if (this.#stopped || !this.#live.has(id)) return;
    if (this.#driving.has(id)) {
      this.#again.add(id);
      return;
    }
    const loop = (async () => {
      do {
        this.#again.delete(id);
        await this.#pass(id);
      } while (this.#again.has(id) && !this.#stopped);
    })()
      .catch((err: unknown) => this.deps.log.warn('run.save.fail', { run: id, error: (err as Error).message }))
      .finally(() => {
        this.#driving.delete(id);
        // Asked again after the loop's last check (a result arriving as it returned): drive once more.
        if (this.#again.has(id)) this.drive(id);
      });
    this.#driving.set(id, loop);
  }

  /** Stops driving: timers disarmed, in-flight steps aborted; resolves once every drive loop returned. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopClaims?.();
    this.#timers.clear();
    for (const controller of this.#cancels.values()) controller.abort(ENGINE_STOPPED);
    const flights = [...this.#inflight.values()].flatMap((steps) => [...steps.values()].map((f) => f.done));
    await Promise.allSettled([...this.#driving.values(), ...flights]);
  }

  async #pass(id: string): Promise<void> {
    for (let i = 0; i < DECISIONS_PER_SLICE; i++) {
      const run = this.#live.get(id);
      if (!run || this.#stopped) return;
      await this.#settleArrived(run);
      if (!this.#live.has(id)) return;
      const now = this.deps.clock();
      const spills = await readSpills(run, this.deps.ports, now);
      const decision = nextRunDecision(run, now, spills);
      switch (decision.type) {
        case 'end':
          if (decision.event)
            this.deps.log.info(decision.event, { run: id, workflow: run.workflow, error: decision.error });
          await this.#end(run, endRun(run, decision.status, decision.error, null, now));
          return;
        case 'prune':
          await this.#commit(run, pruneSteps(run, decision.steps, now));
          break;
        case 'due': {
          // A `wait` step's timeout can fail the run.
          const events = resolveDue(run, decision.steps, now);
          await (TERMINAL_RUN.has(run.status) ? this.#end(run, events) : this.#commit(run, events));
          break;
        }
        case 'ready':
          await this.#runStep(run, decision.steps[0] as string);
          break;
        case 'nest': {
          const id = decision.steps[0] as string;
          const moved = advanceNest(run, id, now, spills);
          const events = moved.result ? [...moved.events, ...settleWait(run, id, moved.result, now)] : moved.events;
          await (TERMINAL_RUN.has(run.status) ? this.#end(run, events) : this.#commit(run, events));
          break;
        }
        case 'idle':
          this.#timers.arm(id, decision.wakeAt);
          return;
      }
    }
    setImmediate(() => this.drive(id));
  }

  /**
   * Runs one ready step. An inline kind is applied at once; an effect kind is committed `running` first and then
   * executes off the drive loop, so effects of independent steps and body instances run side by side; its result
   * is applied by a later pass.
   */
  async #runStep(run: WorkflowRun, id: string): Promise<void> {
    const step = stepDefAt(run.definition, id);
    const kind = step && nodeKind(step.kind);
    if (!step || !kind) throw new Error(`run ${run.id}: step "${id}" has no kind`);
    this.#log(run, beginStep(run, id, this.deps.clock()));
    if (kind.effect) {
      await this.#save(run);
      this.#killPoint('step.running', id);
    }
    const cancel = this.#cancels.get(run.id)?.signal ?? new AbortController().signal;
    const controller = new AbortController();
    const signal = AbortSignal.any([cancel, controller.signal]);
    const execution = executeStep(run, step, kind, this.deps.ports, this.deps.clock(), signal);
    if (kind.effect) {
      this.#launch(run.id, id, run.steps[id]?.attempt ?? 0, controller, execution);
      return;
    }
    const result = await execution;
    if (TERMINAL_RUN.has(run.status) || this.#stopped) return;
    this.#killPoint('step.before_done', id);
    const events = applyResult(run, id, result, this.deps.clock());
    if (TERMINAL_RUN.has(run.status)) await this.#end(run, events);
    else await this.#commit(run, events);
    this.#killPoint('step.after_done', id);
    if (result.type === 'suspend') this.#watchWaits(run);
  }

  #killPoint(point: string, step: string): void {
    this.deps.killPoint?.(point);
    this.deps.killPoint?.(`${point}@${step}`);
  }

  #launch(
    runId: string,
    step: string,
    attempt: number,
    controller: AbortController,
    execution: Promise<StepResult>,
  ): void {
    const steps = this.#inflight.get(runId) ?? new Map<string, InFlight>();
    this.#inflight.set(runId, steps);
    const done = execution.then((result) => {
      if (steps.get(step)?.controller === controller) steps.delete(step);
      if (this.#stopped || !this.#live.has(runId)) return;
      const finished = this.#finished.get(runId) ?? [];
      finished.push({ step, attempt, result });
      this.#finished.set(runId, finished);
      this.drive(runId);
    });
    steps.set(step, { attempt, controller, done });
  }

  #watchWaits(run: WorkflowRun): void {
    const cancel = this.#cancels.get(run.id)?.signal;
    if (cancel) this.#waits.watch(run, cancel);
  }

  /**
   * Aborts executions whose step no longer runs that attempt (its instance was dropped, the run moved on) and
   * watches whose step no longer waits; a live run's dropped sync child runs are cancelled (a lost race branch).
   */
  #sweep(run: WorkflowRun): void {
    for (const { child, step } of this.#waits.sweep(run))
      if (!TERMINAL_RUN.has(run.status)) void this.cancel(child, `its parent step "${step}" was cancelled`);
    const steps = this.#inflight.get(run.id);
    for (const [id, flight] of steps ?? []) {
      const state = run.steps[id];
      if (state?.status === 'running' && state.attempt === flight.attempt) continue;
      flight.controller.abort('its instance ended');
      steps?.delete(id);
    }
  }

  async #commit(run: WorkflowRun, events: RunEvent[]): Promise<void> {
    await this.#save(run);
    this.#log(run, events);
    this.#sweep(run);
  }

  async #end(run: WorkflowRun, events: RunEvent[]): Promise<void> {
    this.#timers.arm(run.id, null);
    this.#live.delete(run.id);
    this.#waits.drop(run.id);
    this.#finished.delete(run.id);
    this.#inflight.delete(run.id);
    this.#cancels.get(run.id)?.abort(run.error ?? `run ${run.status}`);
    this.#cancels.delete(run.id);
    await this.#commit(run, events);
    this.deps.watch?.ended(run);
    this.deps.onRunEnded(run);
  }

  // A fenced save: another replica owns the run now; this one stops driving this copy of it at once.
  readonly #save = (run: WorkflowRun): Promise<void> =>
    this.deps.store.workflows.saveRun(run).catch(fencedThen(() => this.#lost(run.id, run)));

  /** Logs `events` and shows each step move among them to the watch (every path a step ends by logs one). */
  #log(run: Readonly<WorkflowRun>, events: readonly RunEvent[]): void {
    for (const event of events) {
      // The run's output rides on run.done only with observability.log_content (reference §2.10).
      const fields =
        event.event === 'run.done' && this.deps.logContent ? { ...event.fields, output: run.output } : event.fields;
      this.deps.log[event.level ?? 'info'](event.event as never, fields);
      const move = this.deps.watch && stepMove(event);
      if (move) this.deps.watch?.step(run, move.step, move.status);
    }
  }
}
