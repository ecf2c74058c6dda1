// When a job-shaped instance is done (producers reference §3.1): it watches the supervisor, the workflow desk and
// the timers, re-checks the shape against the live definitions (a `workflow.create` of a loop keeps it up), and
// resolves when lifecycle.idle_exit is due. It never exits the process: cli/ does, with the code the runs give.
import type { Config } from '../config/types.js';
import { isAlarm } from '../domain/timer.js';
import type { Logger } from '../obs/log.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { hasRecurringStart, type LifeShape, nextIdleStep, shapeOf } from '../triggers/lifeShape.js';
import { LOOP_KIND } from '../triggers/loopPolicy.js';
import { SCHEDULE_KIND } from '../triggers/scheduleRunner.js';
import type { WorkflowProducer } from '../workflows/workflowProducer.js';

export interface IdleParts {
  config: Readonly<Config>;
  supervisor: Pick<Supervisor, 'idle' | 'timers'>;
  workflows: Pick<WorkflowProducer, 'desk' | 'busy'> | undefined;
  clock(): number;
}

/**
 * How often the idle state is looked at: it spans the supervisor, the desk and the timers, none of which
 * announces every change; a look costs microseconds and bounds how late an idle job exits.
 */
const LOOK_MS = 50;

/** The shape now, over the live definitions. */
export function liveShape(parts: IdleParts): { shape: LifeShape; recurring: boolean } {
  const defs = parts.workflows?.desk?.definitions().values() ?? parts.config.workflows;
  const recurring = hasRecurringStart(defs);
  const { lifecycle, a2a } = parts.config;
  return { shape: shapeOf(lifecycle.run_until, a2a.listen !== null, recurring), recurring };
}

/**
 * Busy: a turn queued or running, a run live or queued, or a timer armed that is not a start's own next firing (a
 * schedule's or a loop's: reference §3.1). A record row (a subscribe node's ring or held firing) never comes due.
 */
function busy(parts: IdleParts): boolean {
  if (!parts.supervisor.idle || parts.workflows?.busy()) return true;
  return parts.supervisor.timers.list().some((t) => isAlarm(t) && t.kind !== SCHEDULE_KIND && t.kind !== LOOP_KIND);
}

/**
 * Resolves `idle` once the instance, job-shaped, should exit (logging nothing: the caller logs the code), or
 * `stopped` when `stopped` resolves first (a signal, the operator's drain). A daemon shape only ever stops.
 */
export async function untilIdleExit(parts: IdleParts, stopped: Promise<void>): Promise<'idle' | 'stopped'> {
  let halt = false;
  void stopped.then(() => {
    halt = true;
  });
  let idleSince: number | null = null;
  while (!halt) {
    const now = parts.clock();
    const isBusy = busy(parts);
    idleSince = isBusy ? null : (idleSince ?? now);
    const step = nextIdleStep(
      { ...liveShape(parts), busy: isBusy, idleSince, graceMs: parts.config.lifecycle.idle_grace },
      now,
    );
    if (step.type === 'exit') return 'idle';
    await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, LOOK_MS))]);
  }
  return 'stopped';
}

/** Logs the idle exit with its code (reference §3.1 `lifecycle.idle_exit {code, job_shape}`). */
export function logIdleExit(log: Logger, code: number): void {
  log.info('lifecycle.idle_exit', { code, job_shape: true });
}
