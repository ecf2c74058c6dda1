// Which ended subagent records to drop (reference §5 item 4): agentd keeps every record forever, so a daemon's
// registry only grows. Ended records are kept up to `subagents.keep`, newest first, and for `subagents.keep_for`
// after they ended. Live records and records whose worker is still exiting are never dropped. Pure.
import { isTerminal, type SubagentRecord } from '../domain/subagent.js';

export interface Retention {
  /** Ended records kept at most. */
  keep: number;
  /** Milliseconds an ended record is kept after its end (`updated`). */
  keepForMs: number;
}

/** The handles to prune at `now`; `busy`: handles whose worker is still running (a killed warm session). */
export function planPrune(
  records: Iterable<SubagentRecord>,
  retention: Retention,
  busy: ReadonlySet<string>,
  now: number,
): string[] {
  const ended = [...records]
    .filter((r) => isTerminal(r.status))
    .sort((a, b) => b.updated - a.updated || b.created - a.created);
  return ended
    .filter((r, newest) => newest >= retention.keep || now - r.updated > retention.keepForMs)
    .filter((r) => !busy.has(r.handle))
    .map((r) => r.handle);
}
