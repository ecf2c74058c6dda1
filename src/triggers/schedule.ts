// Schedules as pure policy (producers reference §3.4, §5 items 6 and 26): cron with an IANA `tz`, `every`, `at` as
// a wall-clock time (one-shot), bounded deterministic `jitter`, `catch_up` for occurrences missed while down, and
// the overlap policy. Next-fire and missed-occurrence computation take the clock as an argument; no I/O.
import { Cron } from 'croner';
import { parseDuration } from '../config/duration.js';
import { FIRED_KEY_KEEP_MS } from './firedKeys.js';

export type CatchUp = 'none' | 'one' | 'all';
export type Overlap = 'skip' | 'queue' | 'cancel_previous';

/** A schedule's fields as a workflow's `schedule` start node writes them. */
export interface ScheduleFields {
  cron?: string;
  every?: string | number;
  at?: string;
  tz?: string;
  jitter?: string | number;
  catch_up?: CatchUp;
  overlap?: Overlap;
}

/** A checked schedule: how occurrences are computed, and the policies. */
export interface Schedule {
  rule: { kind: 'every'; everyMs: number } | { kind: 'cron'; cron: Cron } | { kind: 'at'; atMs: number };
  jitterMs: number;
  catchUp: CatchUp;
  overlap: Overlap;
}

/**
 * An occurrence is missed (catch_up applies) once it is this late; a firing delayed less (a quick restart, a busy
 * loop) is simply on time. Our choice: agentd skips every late occurrence (reference §3.4).
 */
export const MISS_GRACE_MS = 1_000;
/** `catch_up: all` fires at most this many missed occurrences (the latest ones). */
export const MAX_CATCH_UP = 100;

const CATCH_UPS: readonly CatchUp[] = ['none', 'one', 'all'];
const OVERLAPS: readonly Overlap[] = ['skip', 'queue', 'cancel_previous'];

/**
 * Checks and compiles `fields`; `where` prefixes each error (e.g. `workflows.nightly.start.schedule`). Errors
 * name the field: `<where>.cron: invalid cron expression "<expr>" (<why>)`, `<where>.tz: unknown time zone
 * "<tz>" (use an IANA name such as Europe/Paris)`.
 */
export function compileSchedule(
  fields: ScheduleFields,
  where: string,
): { ok: true; schedule: Schedule } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const tz = fields.tz ?? 'UTC';
  if (!isTimeZone(tz))
    errors.push(`${where}.tz: unknown time zone ${JSON.stringify(tz)} (use an IANA name such as Europe/Paris)`);
  const jitterMs = durationField(fields.jitter, `${where}.jitter`, errors) ?? 0;
  const catchUp = fields.catch_up ?? 'one';
  if (!CATCH_UPS.includes(catchUp)) errors.push(`${where}.catch_up: must be one of none, one, all`);
  const overlap = fields.overlap ?? 'queue';
  if (!OVERLAPS.includes(overlap)) errors.push(`${where}.overlap: must be one of skip, queue, cancel_previous`);
  const rule = ruleOf(fields, where, errors.length === 0 ? tz : 'UTC', errors);
  if (rule?.kind === 'every' && jitterMs >= rule.everyMs) {
    errors.push(`${where}.jitter: must be shorter than every (${fields.every})`);
  }
  if (errors.length > 0 || rule === null) return { ok: false, errors };
  return { ok: true, schedule: { rule, jitterMs, catchUp, overlap } };
}

/** The error texts of `fields` (none when valid): what a workflow loader reports as a load error (exit 2). */
export function validateSchedule(fields: ScheduleFields, where: string): string[] {
  const compiled = compileSchedule(fields, where);
  return compiled.ok ? [] : compiled.errors;
}

function ruleOf(fields: ScheduleFields, where: string, tz: string, errors: string[]): Schedule['rule'] | null {
  const given = (['every', 'at', 'cron'] as const).filter((k) => fields[k] !== undefined);
  if (given.length !== 1) {
    errors.push(`${where}: set exactly one of every, at, cron${given.length > 1 ? ` (got ${given.join(', ')})` : ''}`);
    return null;
  }
  if (fields.every !== undefined) {
    const everyMs = durationField(fields.every, `${where}.every`, errors);
    if (everyMs !== undefined && everyMs <= 0) errors.push(`${where}.every: must be longer than 0`);
    return everyMs === undefined || everyMs <= 0 ? null : { kind: 'every', everyMs };
  }
  if (fields.at !== undefined) {
    const atMs = wallClock(fields.at, tz);
    if (atMs === null)
      errors.push(
        `${where}.at: not a date and time ${JSON.stringify(fields.at)} (use e.g. 2026-03-29T02:30, read in tz, or 2026-03-29T00:30Z)`,
      );
    return atMs === null ? null : { kind: 'at', atMs };
  }
  try {
    return { kind: 'cron', cron: new Cron(String(fields.cron), { timezone: tz, paused: true }) };
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/^CronPattern: /, '') : String(err);
    errors.push(`${where}.cron: invalid cron expression ${JSON.stringify(fields.cron)} (${why})`);
    return null;
  }
}

function durationField(value: string | number | undefined, where: string, errors: string[]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  try {
    return parseDuration(value);
  } catch (err) {
    errors.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A date-time in `tz` (or with its own offset) as epoch ms; null when it is not one. */
function wallClock(text: string, tz: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text)) return null;
  try {
    return new Cron(text, { timezone: tz, paused: true }).nextRun(new Date(0))?.getTime() ?? null;
  } catch {
    return null;
  }
}

/**
 * The first occurrence strictly after `afterMs`, or null when there is none (a consumed `at`). `every` counts
 * from `anchorMs` (when it was first armed), so occurrences never drift and a restart keeps the grid.
 */
export function nextOccurrence(schedule: Schedule, afterMs: number, anchorMs: number): number | null {
  const { rule } = schedule;
  if (rule.kind === 'every') {
    const k = Math.floor((afterMs - anchorMs) / rule.everyMs) + 1;
    return anchorMs + Math.max(1, k) * rule.everyMs;
  }
  if (rule.kind === 'at') return rule.atMs > afterMs ? rule.atMs : null;
  return rule.cron.nextRun(new Date(afterMs))?.getTime() ?? null;
}

/** The bounded, deterministic jitter of one occurrence: the same seed and occurrence always give the same delay. */
export function jitterOf(schedule: Schedule, seed: string, occurrenceMs: number): number {
  if (schedule.jitterMs <= 0) return 0;
  let hash = 0x811c9dc5;
  for (const ch of `${seed}@${occurrenceMs}`) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % (schedule.jitterMs + 1);
}

/** What to do when an occurrence's timer fires at `now`. */
export interface DuePlan {
  /** Occurrences to fire now, oldest first. */
  fire: number[];
  /** Missed occurrences catch_up left out. */
  skipped: number;
  /** The next occurrence to arm, or null when the schedule is done. */
  next: number | null;
}

/**
 * Plans the firing of `occurrenceMs` (due at `dueMs`, its jittered time) at `now`. On time (late by less than
 * MISS_GRACE_MS) it fires alone. Late, it and every later occurrence up to `now - MISS_GRACE_MS` were missed
 * (the daemon was down): `catch_up` fires none, the latest one, or all of them (at most MAX_CATCH_UP). Missed
 * occurrences older than the fired-key retention (7 days) are never caught up: their keys may be pruned already,
 * so a late firing could repeat one.
 */
export function planDue(
  schedule: Schedule,
  occurrenceMs: number,
  dueMs: number,
  now: number,
  anchorMs: number,
): DuePlan {
  if (now - dueMs < MISS_GRACE_MS) {
    return { fire: [occurrenceMs], skipped: 0, next: nextOccurrence(schedule, occurrenceMs, anchorMs) };
  }
  const missed = [occurrenceMs];
  let next = nextOccurrence(schedule, occurrenceMs, anchorMs);
  let more = 0;
  while (next !== null && next <= now - MISS_GRACE_MS) {
    if (missed.length < MAX_CATCH_UP) missed.push(next);
    else {
      missed.shift();
      missed.push(next);
      more++;
    }
    next = nextOccurrence(schedule, next, anchorMs);
  }
  const recent = missed.filter((o) => o >= now - FIRED_KEY_KEEP_MS);
  const fire = schedule.catchUp === 'all' ? recent : schedule.catchUp === 'one' ? recent.slice(-1) : [];
  return { fire, skipped: missed.length + more - fire.length, next };
}

/** What a firing does while the previous run of its trigger may still be live (the overlap policy). */
export function decideOverlap(overlap: Overlap, previousLive: boolean): 'fire' | 'skip' | 'cancel_previous' {
  if (!previousLive || overlap === 'queue') return 'fire';
  return overlap;
}
