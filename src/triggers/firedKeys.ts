// How long the exactly-once keys of firings are kept (issue 17 item 5): a webhook's idempotency key, and the start
// key of a run a trigger started (`schedule/`, `loop/`, `event/`, `signal/`, `subscribe/`, `webhook/`), which is
// the run record itself (so a webhook redelivered after its key was forgotten finds no old run either). Past the retention a key goes: a finished run of such a trigger is deleted with it, except a
// loop's newest run, from which the loop counts its iterations. Pure.
import { TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';

/** One retention for every fired key: a redelivery or replay later than this starts work again. */
export const FIRED_KEY_KEEP_MS = 7 * 24 * 3_600_000;
/** Old keys are pruned at most this often (an idle daemon does no work). */
export const FIRED_KEY_PRUNE_EVERY_MS = 3_600_000;

/** Start-key prefixes of runs that recurring triggers started. */
export const FIRED_KEY_PREFIXES: readonly string[] = [
  'schedule/',
  'loop/',
  'event/',
  'signal/',
  'subscribe/',
  'webhook/',
];

type RunKey = Pick<WorkflowRun, 'id' | 'startKey' | 'status' | 'finished' | 'updated'>;

/** The loop prefix of a loop run's key (`loop/<workflow>.<node>/`) and its iteration. */
function loopOf(key: string): { prefix: string; n: number } | null {
  if (!key.startsWith('loop/')) return null;
  const cut = key.lastIndexOf('/') + 1;
  return { prefix: key.slice(0, cut), n: Number(key.slice(cut)) };
}

/** Ids of the runs whose fired keys are past `keepMs` at `now`: terminal, trigger-started, not a loop's newest. */
export function planFiredKeyPrune(runs: readonly RunKey[], now: number, keepMs = FIRED_KEY_KEEP_MS): string[] {
  const newest = new Map<string, { id: string; n: number }>();
  for (const run of runs) {
    const loop = loopOf(run.startKey);
    const held = loop && newest.get(loop.prefix);
    if (loop && (!held || loop.n > held.n)) newest.set(loop.prefix, { id: run.id, n: loop.n });
  }
  const kept = new Set([...newest.values()].map((v) => v.id));
  const before = now - keepMs;
  return runs
    .filter((r) => TERMINAL_RUN.has(r.status) && (r.finished ?? r.updated) < before && !kept.has(r.id))
    .filter((r) => FIRED_KEY_PREFIXES.some((p) => r.startKey.startsWith(p)))
    .map((r) => r.id);
}
