// The engine's watches over suspended waits resolved outside the run record (producers reference §2.8): one watch
// per wait, aborted once its step no longer waits on it (settled, dropped with a lost race branch, the run's end),
// so a watch never outlives its wait. A dropped sync child-run wait names the child to cancel (§2.8 race).
import type { StepWait, WorkflowRun } from '../domain/workflow.js';
import { stepDefAt } from './nesting.js';
import type { StepResult } from './nodeKind.js';

/** Waits resolved from outside the run record (signals and due times are the scheduler's). */
const WATCHED: ReadonlySet<StepWait['kind']> = new Set(['run', 'subagent', 'resource', 'join', 'condition', 'webhook']);

/** Why a watch stopped because its step stopped waiting (not the run's end, not an engine stop). */
export const WAIT_DROPPED = 'its wait ended';

export type WatchWait = (run: Readonly<WorkflowRun>, wait: StepWait, signal: AbortSignal) => Promise<StepResult | null>;

export interface Arrived {
  step: string;
  wait: StepWait;
  result: StepResult;
}

interface Watch {
  wait: StepWait;
  controller: AbortController;
}

export class WaitWatches {
  readonly #watches = new Map<string, Map<string, Watch>>();
  readonly #arrived = new Map<string, Arrived[]>();

  /** `onArrived` asks for a pass over the run (the drive loop applies what arrived). */
  constructor(
    private readonly watchWait: WatchWait | undefined,
    private readonly onArrived: (run: string) => void,
  ) {}

  /** Starts a watch for every suspended external wait of `run` not watched yet (after a suspend, or a restore). */
  watch(run: WorkflowRun, cancel: AbortSignal): void {
    if (!this.watchWait) return;
    const watches = this.#watches.get(run.id) ?? new Map<string, Watch>();
    this.#watches.set(run.id, watches);
    for (const [step, state] of Object.entries(run.steps)) {
      const wait = state.wait;
      if (state.status !== 'suspended' || wait === null || !WATCHED.has(wait.kind)) continue;
      if (watches.get(step)?.wait === wait) continue;
      watches.get(step)?.controller.abort(WAIT_DROPPED);
      const controller = new AbortController();
      watches.set(step, { wait, controller });
      this.watchWait(run, wait, AbortSignal.any([cancel, controller.signal]))
        .catch(
          (err: unknown): StepResult => ({ type: 'failed', error: `wait ${wait.kind}: ${(err as Error).message}` }),
        )
        .then((result) => {
          if (result === null || controller.signal.aborted || cancel.aborted) return;
          const arrived = this.#arrived.get(run.id) ?? [];
          arrived.push({ step, wait, result });
          this.#arrived.set(run.id, arrived);
          this.onArrived(run.id);
        });
    }
  }

  /** What watches found for `run` since the last call. */
  take(run: string): Arrived[] {
    const arrived = this.#arrived.get(run) ?? [];
    this.#arrived.delete(run);
    return arrived;
  }

  /**
   * Aborts the watches whose step no longer waits on their wait; resolves with the sync child runs those steps
   * started (`workflow` steps without `cascade: false`), which the caller cancels when the run itself goes on.
   */
  sweep(run: Readonly<WorkflowRun>): Array<{ child: string; step: string }> {
    const watches = this.#watches.get(run.id);
    const children: Array<{ child: string; step: string }> = [];
    for (const [step, watch] of watches ?? []) {
      if (run.steps[step]?.wait === watch.wait) continue;
      watch.controller.abort(WAIT_DROPPED);
      watches?.delete(step);
      const { wait } = watch;
      const cascade = stepDefAt(run.definition, step)?.fields['cascade'] !== false;
      if (wait.kind === 'run' && wait.child === true && wait.run !== undefined && cascade)
        children.push({ child: wait.run, step });
    }
    return children;
  }

  /** Forgets `run` (it ended: its cancel signal stopped every watch). */
  drop(run: string): void {
    this.#watches.delete(run);
    this.#arrived.delete(run);
  }
}
