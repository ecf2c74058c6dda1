// Cancelling a workflow run that another replica runs (issue 19; interfaces reference §4.4): the run is live in the
// shared store but not in this process, so the cancel is stored as a request and the fleet woken (NOTIFY); the
// replica that runs it cancels it (a2a/fleetOperations.ts). The caller hears the run's stored status once it ended,
// or `cancel_requested` when it did not end within the wait (the request stays until the run ends).
import { TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import { readUntil } from '../store/readUntil.js';
import type { FleetView } from '../store/store.js';

/** How long a cancel waits for the run's end to be stored by the replica that runs it. */
export const RUN_CANCEL_WAIT_MS = 10_000;

/** Requests the cancel of live run `id` at whichever replica runs it; resolves with the status it reached. */
export async function cancelElsewhere(
  fleet: Pick<FleetView, 'requestRunCancel'>,
  read: (id: string) => Promise<Readonly<WorkflowRun> | null>,
  id: string,
  reason: string,
  waitMs = RUN_CANCEL_WAIT_MS,
): Promise<string> {
  await fleet.requestRunCancel(id, reason);
  const ended = await readUntil(async () => {
    const run = await read(id);
    return run === null || TERMINAL_RUN.has(run.status) ? (run?.status ?? 'cancelled') : null;
  }, waitMs);
  return ended ?? 'cancel_requested';
}

/**
 * Run `id`, not live here, as stored: cancelled at the replica that runs it when it is live and replicas share the
 * store; an ended one answers its status unchanged; an unknown one is an error.
 */
export async function cancelStoredRun(
  fleet: Pick<FleetView, 'requestRunCancel'> | undefined,
  id: string,
  read: (id: string) => Promise<Readonly<WorkflowRun> | null>,
  reason: string,
): Promise<{ ok: true; status: string } | { ok: false; error: string }> {
  const run = await read(id);
  if (run === null) return { ok: false, error: `no such run "${id}"` };
  if (fleet === undefined || TERMINAL_RUN.has(run.status)) return { ok: true, status: run.status };
  return { ok: true, status: await cancelElsewhere(fleet, read, id, reason) };
}
