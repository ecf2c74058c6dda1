// A durable timer (producers reference §3.8): who armed it, what kind of firing it is, when it is due (wall clock)
// and what the firing needs. Plain data; the timer service (triggers/timerService.ts) arms and fires them.

export interface TimerRecord {
  /** Unique per timer (a ULID, or a key the owner derives so re-arming the same thing replaces it). */
  id: string;
  /** What armed it, e.g. `turn:<turn id>` or `trigger:<id>`: ending the owner deletes its timers. */
  owner: string;
  /** Which handler fires it, e.g. `tool` (a turn's sleep) or `schedule`. */
  kind: string;
  /** Due time, epoch ms (wall clock): re-armed from the store at start, never from "now". */
  due: number;
  /** What the firing needs (JSON). */
  payload: unknown;
}

/** The due time of a row that is a record, not an alarm (a subscribe node's sample ring or held firing). */
export const NEVER_DUE = Number.MAX_SAFE_INTEGER;

/** A record row never fires: it keeps no job alive and is no one's next due time. */
export const isAlarm = (t: Pick<TimerRecord, 'due'>): boolean => t.due < NEVER_DUE;
