// Replicas (issue 19): a live workflow run is driven by the one replica that owns it. The engine claims at start
// the runs nobody owns live, and claims again on a short period: a dead replica's runs are adopted once their
// owner's hold (the lease TTL) ran out.
import { TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import type { Logger } from '../obs/log.js';

/** How often the engine claims runs nobody owns live. */
export const RUN_CLAIM_MS = 1_000;

/** Claims every `everyMs` (one claim at a time) and hands what was taken to `take`; returns the stop. */
export function claimEvery(
  claim: () => Promise<WorkflowRun[]>,
  take: (runs: WorkflowRun[]) => Promise<void>,
  log: Pick<Logger, 'warn'>,
  everyMs = RUN_CLAIM_MS,
): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    claim()
      .then(take)
      .catch((err: unknown) => log.warn('run.save.fail', { error: `claiming runs: ${(err as Error).message}` }))
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Readies each claimed run with `ready` (replay, timer repair); one that throws is given back (`release`: the next
 * claim takes it) and left out, so one bad run does not leave the rest claimed here but never driven. Resolves with
 * the readied runs and a rejection handler that gives them all back (a later step of the take failed) and rethrows.
 */
export async function readyEach(
  runs: readonly WorkflowRun[],
  ready: (run: WorkflowRun) => Promise<void>,
  release: ((id: string) => Promise<void>) | undefined,
  log: Pick<Logger, 'warn'>,
): Promise<[WorkflowRun[], (err: unknown) => Promise<never>]> {
  const giveBack = async (run: WorkflowRun, err: unknown) => {
    log.warn('run.save.fail', { run: run.id, error: `taking the run: ${(err as Error).message}` });
    await release?.(run.id).catch((e: unknown) =>
      log.warn('run.save.fail', { run: run.id, error: `giving the run back: ${(e as Error).message}` }),
    );
  };
  const readied: WorkflowRun[] = [];
  for (const run of runs) {
    try {
      await ready(run);
      readied.push(run);
    } catch (err) {
      await giveBack(run, err);
    }
  }
  const all = async (err: unknown): Promise<never> => {
    for (const run of readied) await giveBack(run, err);
    throw err;
  };
  return [readied, all];
}

/** A rejection handler: runs `then` when the error is a fenced write (store_fenced), and rethrows either way. */
export function fencedThen(then: () => void): (err: unknown) => never {
  return (err) => {
    if ((err as { code?: string }).code === 'store_fenced') then();
    throw err;
  };
}

/** How often a wait on a run another replica drives reads the stored run. */
export const STORED_END_POLL_MS = 1_000;

/**
 * Run `id`, driven by another replica, once its stored record is terminal (read by `read` every `everyMs`); null
 * once `signal` aborts first or the run is gone. Replicas have no cross-replica run-end push.
 */
export async function storedEnd(
  read: (id: string) => Promise<Readonly<WorkflowRun> | null>,
  id: string,
  signal: AbortSignal,
  everyMs = STORED_END_POLL_MS,
): Promise<Readonly<WorkflowRun> | null> {
  while (!signal.aborted) {
    const run = await read(id);
    if (run === null || TERMINAL_RUN.has(run.status)) return run;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, everyMs);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
  return null;
}
