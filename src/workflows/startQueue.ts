// Starts queued behind a workflow's concurrency limit, kept durably (issue 17 item 6; producers reference §2.9
// `queue`): each is a timer row that never comes due, so a restart finds it and the desk tries it again, and
// a start that finally ran (or was refused) deletes its row.
import type { TimerRecord } from '../domain/timer.js';
import type { TimerService } from '../triggers/timerService.js';
import type { StartRequest } from './workflowDesk.js';

/** The row kind of a queued start. */
export const QUEUED_START_KIND = 'start_queued';
/** Never due: the row is a record, not an alarm (the timer service caps the wait and looks again). */
const NEVER = Number.MAX_SAFE_INTEGER;

/** Where the desk keeps its queued starts. */
export interface StartQueue {
  hold(req: StartRequest): Promise<void>;
  release(startKey: string): Promise<void>;
  /** The starts a previous life left queued, oldest first. */
  held(): Promise<StartRequest[]>;
}

const ownerOf = (startKey: string): string => `queued:${startKey}`;

/** A queue row's payload; `seq` (1 + the highest held) keeps the order of starts queued in one millisecond. */
interface HeldStart {
  req: StartRequest;
  at: number;
  seq?: number;
}

const heldRows = (timers: TimerService): Array<{ id: string; held: HeldStart }> =>
  timers
    .list()
    .filter((t) => t.kind === QUEUED_START_KIND)
    .map((t) => ({ id: t.id, held: t.payload as HeldStart }));

/** Oldest first: by sequence number (a clock can repeat a millisecond), by time for rows without one. */
const byQueueOrder = (a: HeldStart, b: HeldStart): number =>
  a.seq !== undefined && b.seq !== undefined ? a.seq - b.seq : a.at - b.at;

/** The queue on the supervisor's timer service. */
export function timerStartQueue(timers: TimerService): StartQueue {
  timers.handle(QUEUED_START_KIND, () => 'keep');
  return {
    hold: async (req) => {
      const id = ownerOf(req.startKey);
      const rows = heldRows(timers);
      // Queued again (tried after a restart, still over the limit): it keeps its place.
      if (rows.some((r) => r.id === id)) return;
      const seq = 1 + Math.max(0, ...rows.map((r) => r.held.seq ?? 0));
      const payload: HeldStart = { req, at: timers.now(), seq };
      const row: TimerRecord = { id, owner: id, kind: QUEUED_START_KIND, due: NEVER, payload };
      await timers.arm(row);
    },
    release: async (startKey) => {
      await timers.cancelOwner(ownerOf(startKey));
    },
    held: async () => {
      await timers.ready;
      return heldRows(timers)
        .map((r) => r.held)
        .sort(byQueueOrder)
        .map((h) => h.req);
    },
  };
}
