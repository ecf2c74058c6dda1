// Which child runs lost their parent's claim while the daemon was down (producers reference §2.8 race, §2.10): a
// lost race branch's sync children are cancelled in memory after the parent's commit, so a kill between the two
// leaves the child live with no record of the dropped wait. At restore the records themselves decide.
import { TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import { stepDefAt } from './nesting.js';

/**
 * True when the `workflow` step that started `child` waits for its end: its rendered `mode` as the child keeps it;
 * a child stored before it was kept reads the definition (`mode: sync`, the default, not templated).
 */
function syncStep(parent: Readonly<WorkflowRun>, child: Readonly<WorkflowRun>): boolean {
  const link = child.parent;
  if (link?.sync !== undefined) return link.sync;
  const mode = link ? stepDefAt(parent.definition, link.step)?.fields['mode'] : undefined;
  return mode === undefined || mode === 'sync';
}

/**
 * Why live run `child` must be cancelled now, or null when its parent still wants it: a cascading sync child whose
 * parent run ended or whose parent step no longer waits on it; any cascading child of a cancelled parent (the cancel
 * cascade of a `cancel_run`). A step still pending or running keeps its child: its replay finds it again by key.
 * The desk asks at a parent's end; the restore asks again for the children whose cancel a kill lost.
 */
export function orphanReason(child: Readonly<WorkflowRun>, parent: Readonly<WorkflowRun> | null): string | null {
  const link = child.parent;
  if (!link?.cascade || parent === null) return null;
  if (parent.status === 'cancelled') return 'parent run cancelled';
  if (!syncStep(parent, child)) return null;
  if (TERMINAL_RUN.has(parent.status)) return 'its parent run ended';
  const state = parent.steps[link.step];
  if (state?.status === 'pending' || state?.status === 'running') return null;
  if (state?.status === 'suspended' && state.wait?.kind === 'run' && state.wait.run === child.id) return null;
  return `its parent step "${link.step}" was cancelled`;
}

/** Restored live `runs` whose parent no longer wants them, with why; a parent not among them is read by `getRun`. */
export async function findOrphans(
  runs: readonly Readonly<WorkflowRun>[],
  getRun: (id: string) => Promise<Readonly<WorkflowRun> | null>,
): Promise<Map<string, string>> {
  const byId = new Map(runs.map((run) => [run.id, run]));
  const orphans = new Map<string, string>();
  for (const run of runs) {
    if (!run.parent?.cascade) continue;
    const reason = orphanReason(run, byId.get(run.parent.run) ?? (await getRun(run.parent.run)));
    if (reason !== null) orphans.set(run.id, reason);
  }
  return orphans;
}
