// Which ended subagent records to drop (reference §5 item 4): agentd keeps every record forever, so a daemon's
// registry only grows. Ended records are kept up to `subagents.keep`, newest first, and for `subagents.keep_for`
// after they ended. Live records, records whose worker is still exiting, and the callers above a live subagent are
// never dropped: its lineage carries its ceiling, ownership and where its result goes. Pure.
import { isTerminal, type SubagentRecord } from '../domain/subagent.js';

export interface Retention {
  /** Ended records kept at most. */
  keep: number;
  /** Milliseconds an ended record is kept after its end (`updated`). */
  keepForMs: number;
}

/** Every handle above a live subagent in its chain of calling subagents. */
function liveLineage(records: readonly SubagentRecord[]): Set<string> {
  const byHandle = new Map(records.map((r) => [r.handle, r]));
  const held = new Set<string>();
  for (const r of records) {
    if (isTerminal(r.status)) continue;
    for (let up = r.requested_by.subagent; up !== null && !held.has(up); ) {
      held.add(up);
      up = byHandle.get(up)?.requested_by.subagent ?? null;
    }
  }
  return held;
}

/** The handles to prune at `now`; `busy`: handles whose worker is still running (a killed warm session). */
export function planPrune(
  records: Iterable<SubagentRecord>,
  retention: Retention,
  busy: ReadonlySet<string>,
  now: number,
): string[] {
  const all = [...records];
  const held = liveLineage(all);
  const ended = all.filter((r) => isTerminal(r.status)).sort((a, b) => b.updated - a.updated || b.created - a.created);
  return ended
    .filter((r, newest) => newest >= retention.keep || now - r.updated > retention.keepForMs)
    .filter((r) => !busy.has(r.handle) && !held.has(r.handle))
    .map((r) => r.handle);
}
