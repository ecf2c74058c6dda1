// The launch steps' error handling and the dispatch admission's delivery: a step that throws folds its job as failed,
// and an admission that answers later (a budget window the replicas share) reaches the job table when it does.
import type { TurnJob } from '../domain/job.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { JobEvent } from './jobTable.js';
import type { TurnLauncher } from './turnLaunch.js';

/** What the admission's delivery needs of the supervisor. */
export interface AdmitContext {
  log: Logger;
  jobs: { apply(eventId: string, event: JobEvent): boolean };
  launcher: Pick<TurnLauncher, 'admit' | 'release'>;
  wake(): void;
}

/**
 * A launch step that throws (a bug, a store that failed under it) folds its job as failed instead of wedging the
 * table: a job stuck in `admitting` would hold its conversation and a slot, and a drain would never end.
 */
export function guarded(log: Logger, eventId: string, step: () => JobEvent): JobEvent {
  try {
    return step();
  } catch (err) {
    return launchFailure(log, eventId, err);
  }
}

function launchFailure(log: Logger, eventId: string, err: unknown): JobEvent {
  const message = describeError(err);
  log.error('turn.spawn.fail', { inbox_event: eventId, err: message });
  return { type: 'launch_failed', status: 'failed', error: `could not start the turn: ${message}`, kind: 'internal' };
}

/**
 * Dispatch admission: at once, or (a budget window the replicas share) once the store answered. A job gone
 * meanwhile (its lease lost, its conversation dropped) gives back what was reserved for it; `held` says whether
 * this replica still holds the conversation (false stops its work there).
 */
export function admitJob(c: AdmitContext, eventId: string, input: TurnJob, held: () => boolean = () => true): void {
  let answer: JobEvent | Promise<JobEvent>;
  try {
    answer = c.launcher.admit(input);
  } catch (err) {
    answer = launchFailure(c.log, eventId, err);
  }
  if (!(answer instanceof Promise)) {
    c.jobs.apply(eventId, answer);
    return;
  }
  void answer
    .catch((err: unknown) => launchFailure(c.log, eventId, err))
    .then((event) => {
      const admitted = event.type === 'budget_admitted';
      // A lease lost during the round-trip: the turn never starts here (the new holder runs it).
      const applied = (!admitted || held()) && c.jobs.apply(eventId, event);
      if (!applied && admitted) c.launcher.release(eventId);
      c.wake();
    });
}
