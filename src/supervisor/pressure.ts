// The pressure gate's policy (reference §4): classifies the store's free disk space and the cgroup's memory into
// ok | warn | shed, at most once per interval, and names the transition to log. Pure: readings and the clock in.

export type PressureLevel = 'ok' | 'warn' | 'shed';
export type PressureCause = 'disk' | 'memory';

/** Re-assessed at most this often (reference §4: every 2 s). */
export const PRESSURE_INTERVAL_MS = 2_000;
/** Memory sheds at this share of the cgroup's limit. */
export const MEMORY_SHED_SHARE = 0.95;

export interface PressureReading {
  /** Bytes free to an unprivileged writer on the store's filesystem (f_bavail × f_frsize); null: not measured. */
  diskFreeBytes: number | null;
  /** The cgroup's memory in use and its limit; null when there is no limit. */
  memory: { current: number; limit: number } | null;
}

export interface PressureState {
  level: PressureLevel;
  cause: PressureCause | null;
  diskFreeBytes: number | null;
  /** When the last reading was classified; null before the first. */
  checkedAt: number | null;
}

export type PressureEvent = 'pressure.warn' | 'pressure.shed' | 'pressure.cleared';

export const NO_PRESSURE: PressureState = { level: 'ok', cause: null, diskFreeBytes: null, checkedAt: null };

/** True when a new reading is due: never read yet, or the interval has passed. */
export function pressureDue(state: PressureState, now: number): boolean {
  return state.checkedAt === null || now - state.checkedAt >= PRESSURE_INTERVAL_MS;
}

/**
 * The level of one reading. `minFree` 0 disables the disk check. Disk: shed under `minFree`, warn under twice it;
 * memory: shed at 95 % of the limit. Shed beats warn; between two sheds, disk is named.
 */
export function classifyPressure(
  reading: PressureReading,
  minFree: number,
): { level: PressureLevel; cause: PressureCause | null } {
  const free = reading.diskFreeBytes;
  const disk = minFree > 0 && free !== null;
  if (disk && free < minFree) return { level: 'shed', cause: 'disk' };
  const mem = reading.memory;
  if (mem !== null && mem.limit > 0 && mem.current >= MEMORY_SHED_SHARE * mem.limit) {
    return { level: 'shed', cause: 'memory' };
  }
  if (disk && free < 2 * minFree) return { level: 'warn', cause: 'disk' };
  return { level: 'ok', cause: null };
}

/** The state after `reading` at `now`, and the event to log when the level changed (once per transition). */
export function nextPressure(
  state: PressureState,
  reading: PressureReading,
  minFree: number,
  now: number,
): { state: PressureState; event: PressureEvent | null } {
  const { level, cause } = classifyPressure(reading, minFree);
  const next: PressureState = { level, cause, diskFreeBytes: reading.diskFreeBytes, checkedAt: now };
  if (level === state.level) return { state: next, event: null };
  const event: PressureEvent =
    level === 'ok' ? 'pressure.cleared' : level === 'warn' ? 'pressure.warn' : 'pressure.shed';
  return { state: next, event };
}
