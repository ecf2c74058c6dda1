// Loop start nodes (producers reference §3.5): each iteration is a run keyed `loop/<workflow>.<node>/<n>`, so the
// stored runs are the loop's durable state (its count, the last outcome and when it ended); the next firing is
// computed from them by loopPolicy.ts and armed on the durable timer service (owner `trigger:<id>`, so status shows
// it beside the schedules' next firings); the next life computes it again from the runs.
import type { StepDef, WorkflowRun } from '../domain/workflow.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import { LOOP_KIND, type LoopLast, nextLoopStep } from '../triggers/loopPolicy.js';
import type { TimerService } from '../triggers/timerService.js';
import type { TriggerMetrics } from '../triggers/triggerMetrics.js';
import { celHolds, loopSpecOf, principalOf } from './startFields.js';
import type { WorkflowDesk } from './workflowDesk.js';

interface Armed {
  workflow: string;
  step: StepDef;
  timer: NodeJS.Timeout | null;
}

const prefixOf = (id: string): string => `loop/${id}/`;
const ownerOf = (id: string): string => `trigger:${id}`;

export interface LoopDeps {
  desk: WorkflowDesk;
  log: Logger;
  clock(): number;
  metrics?: TriggerMetrics | undefined;
  /** The supervisor's durable timers; without them (a desk alone) the next iteration is an in-memory timeout. */
  timers?: TimerService | undefined;
}

export class LoopStarts {
  readonly #armed = new Map<string, Armed>();

  constructor(private readonly deps: LoopDeps) {
    // A row fires the iteration it names once its loop is armed in this life; earlier, arming recomputes it.
    deps.timers?.handle(LOOP_KIND, async (timer) => {
      const { trigger, iteration } = timer.payload as { trigger: string; iteration: number };
      if (this.#armed.has(trigger)) await this.#fire(trigger, iteration);
      return undefined;
    });
  }

  /** Arms the loop node `step` of `workflow` (the runs it made in earlier lives count). */
  async arm(workflow: string, step: StepDef): Promise<void> {
    const id = `${workflow}.${step.id}`;
    this.disarm(id);
    await this.deps.timers?.ready;
    await this.deps.timers?.cancelOwner(ownerOf(id));
    this.#armed.set(id, { workflow, step, timer: null });
    const runs = await this.deps.desk.runsByKeyPrefix(prefixOf(id));
    await this.#next(id, runs.at(-1) ?? null);
  }

  /** Stops a loop (its definition changed, was deleted or disarmed): its stored next iteration goes too. */
  disarm(id: string): void {
    this.#forget(id);
    this.deps.timers
      ?.cancelOwner(ownerOf(id))
      .catch((err: unknown) =>
        this.deps.log.error('timer.cancel.fail', { owner: ownerOf(id), err: describeError(err) }),
      );
  }

  #forget(id: string): void {
    const armed = this.#armed.get(id);
    if (armed?.timer) clearTimeout(armed.timer);
    this.#armed.delete(id);
  }

  /** Ids of the armed loops of `workflow`. */
  idsOf(workflow: string): string[] {
    return [...this.#armed.values()].filter((a) => a.workflow === workflow).map((a) => `${a.workflow}.${a.step.id}`);
  }

  /** A run ended: when it was a loop's iteration, the loop decides its next one. */
  runEnded(run: Readonly<WorkflowRun>): void {
    const id = `${run.workflow}.${run.start.node}`;
    if (this.#armed.has(id) && run.startKey.startsWith(prefixOf(id))) void this.#next(id, run);
  }

  /** Fires nothing more in this life (a drain); stored rows stay, and the next life computes them again. */
  stop(): void {
    for (const id of [...this.#armed.keys()]) this.#forget(id);
  }

  async #next(id: string, run: Readonly<WorkflowRun> | null): Promise<void> {
    const armed = this.#armed.get(id);
    if (!armed) return;
    const last = run === null ? null : await this.#lastOf(armed, id, run);
    const step = nextLoopStep(loopSpecOf(armed.step.fields), last, this.deps.clock());
    if (step.type === 'stop') {
      this.deps.log.info('start.loop.stopped', { workflow: armed.workflow, node: armed.step.id, reason: step.reason });
      this.#armed.delete(id);
      return;
    }
    if (step.type === 'wait') return;
    const { timers } = this.deps;
    if (timers) {
      // One row per iteration: the row a firing settles is never the next one its run's end armed.
      const payload = { trigger: id, iteration: step.iteration };
      const row = { id: `loop:${id}#${step.iteration}`, owner: ownerOf(id), kind: LOOP_KIND, due: step.atMs, payload };
      await timers.arm(row);
      return;
    }
    const delay = Math.max(0, step.atMs - this.deps.clock());
    armed.timer = setTimeout(() => void this.#fire(id, step.iteration), delay);
  }

  async #lastOf(armed: Armed, id: string, run: Readonly<WorkflowRun>): Promise<LoopLast> {
    const iteration = Number(run.startKey.slice(run.startKey.lastIndexOf('/') + 1));
    const live = this.deps.desk.engine.get(run.id) !== undefined;
    const ok = run.status === 'completed';
    const until = armed.step.fields['until'];
    const scope = { outcome: { ok, output: run.output }, last: run.output };
    return {
      iteration,
      live,
      ok,
      finished: run.finished ?? run.updated,
      untilMet: !live && typeof until === 'string' && celHolds(until, scope),
      failures: ok || live ? 0 : await this.#failuresUpTo(id, iteration),
    };
  }

  /** Failed iterations in a row ending at `iteration` (for `backoff.factor`), read from the stored runs. */
  async #failuresUpTo(id: string, iteration: number): Promise<number> {
    const runs = await this.deps.desk.runsByKeyPrefix(prefixOf(id));
    const n = (r: Readonly<WorkflowRun>): number => Number(r.startKey.slice(prefixOf(id).length));
    let failures = 0;
    for (const r of runs.filter((r) => n(r) <= iteration).reverse()) {
      if (r.status === 'completed') break;
      failures++;
    }
    return Math.max(1, failures);
  }

  async #fire(id: string, iteration: number): Promise<void> {
    const armed = this.#armed.get(id);
    if (!armed) return;
    armed.timer = null;
    const { workflow, step } = armed;
    const got = await this.deps.desk.start({
      workflow,
      node: step.id,
      startKey: `${prefixOf(id)}${iteration}`,
      payload: { iteration },
      principal: principalOf(step.fields),
      conversation: null,
    });
    this.deps.log.info('start.fired', { trigger: id, kind: 'loop', iteration });
    this.deps.metrics?.fired('loop');
    // A refused start (concurrency drop, bad inputs) ends nothing: the loop stops rather than spin.
    if (!got.ok) {
      this.deps.log.info('start.loop.stopped', { workflow, node: step.id, reason: 'refused', error: got.error });
      this.#armed.delete(id);
    }
  }
}
