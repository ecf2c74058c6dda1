// One compacting collection once a daemon has started (issue 14: idle memory). Loading its modules and compiling
// its config leave the old generation's pages part free (an idle daemon: ≈ 14 MB of heap for ≈ 9 MB live); V8's
// memory reducer compacts them only about 8 s into the process's life, so a daemon idling right after its start
// held ≈ 4 MB of RSS more than it needs. The daemon compacts once, soon after it listens; a later collection is
// V8's as before (the compaction flag is set only for this one). An operator's own node flags for the collector
// (`--expose-gc`, a compaction flag) leave it to them.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How long after the daemon listens it compacts: past its start-up work (the spare worker's start). */
export const SETTLE_AFTER_MS = 1_000;

/** The operator chose about the collector: we leave it alone. */
const CHOSEN = /--(no-)?(expose-gc|expose_gc|compact|compact-on-every-full-gc|compact_on_every_full_gc)\b/;

/** Whether this process may compact itself: node's own flags and NODE_OPTIONS say nothing of the collector. */
export function maySettle(env: Readonly<Record<string, string | undefined>>, execArgv: readonly string[]): boolean {
  return !CHOSEN.test(`${env.NODE_OPTIONS ?? ''} ${execArgv.join(' ')}`);
}

/** One full collection that compacts the old generation (V8's `gc`, reached without exposing it to any script). */
export function settleHeap(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/** Compacts once `SETTLE_AFTER_MS` from now unless the operator chose; the returned function cancels it. */
export function settleSoon(env: Readonly<Record<string, string | undefined>>, execArgv: readonly string[]): () => void {
  if (!maySettle(env, execArgv)) return () => {};
  const timer = setTimeout(settleHeap, SETTLE_AFTER_MS);
  timer.unref();
  return () => clearTimeout(timer);
}
