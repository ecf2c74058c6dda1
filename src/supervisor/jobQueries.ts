// Queries over the job table: what prep, the gate, busy/idle, cancel, drain and status read instead of parallel
// collections, and the dispatch gate itself (reference §4). Pure: the clock and the think children's contexts are
// arguments.
import { JOB_STATES, type Job, type JobState, type JobTable } from './jobTable.js';
import type { PressureCause, PressureLevel } from './pressure.js';

const NONE: ReadonlySet<string> = new Set();

/** States in which a job holds its conversation (one writer per conversation). */
const HOLDING: ReadonlySet<JobState> = new Set(['staging', 'admitting', 'spawning', 'running']);

/** States that wait until `wait.untilMs`: the budget's deferral and a spawn's backoff. */
const TIMED: ReadonlySet<JobState> = new Set(['budget_wait', 'spawn_wait']);

/** True while `job` keeps its conversation busy at `now`: preparing, launching, running, waiting, or exiting. */
function holds(job: Job, now: number): boolean {
  if (HOLDING.has(job.state) || job.workerLive) return true;
  return TIMED.has(job.state) && now < (job.wait?.untilMs ?? 0);
}

/**
 * Whether conversation `ctx` is busy: a later message of it must not start. `thinking`: conversations a think
 * child works on (a compaction after a turn, a preflight); no message starts under them.
 */
export function isBusy(table: JobTable, ctx: string, now: number, thinking: ReadonlySet<string> = NONE): boolean {
  if (thinking.has(ctx)) return true;
  for (const job of table.values()) if (job.ctx === ctx && holds(job, now)) return true;
  return false;
}

/** Every busy conversation (the gate's `busy` set), think children's included. */
export function busyContexts(table: JobTable, now: number, thinking: ReadonlySet<string> = NONE): Set<string> {
  const busy = new Set(thinking);
  for (const job of table.values()) if (holds(job, now)) busy.add(job.ctx);
  return busy;
}

/** Inbox ids sort by acceptance time. */
const byInboxOrder = (a: Job, b: Job): number => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);

/** States of a job still ahead of its conversation's next message (a folding job has given its result back). */
const AHEAD: ReadonlySet<JobState> = new Set(
  JOB_STATES.filter((s) => s !== 'folding' && s !== 'done' && s !== 'abandoned'),
);

export interface Hold {
  paused: boolean;
  draining: boolean;
  /** The pressure gate (reference §4): `shed` starts nothing, `warn` holds low-priority work (goal continuations). */
  pressure?: PressureLevel;
  /** What the pressure is about (disk or memory), named in subagent.run's refusals (producers reference §1.4). */
  pressureCause?: PressureCause | null;
}

/** Nothing may start: paused, draining or shedding; queued jobs keep their place. */
const stopped = (at: Hold): boolean => at.paused || at.draining || at.pressure === 'shed';

/** A job that waits while the line moves: low priority under a pressure warning. */
const heldLow = (at: Hold, job: Job): boolean => at.pressure === 'warn' && job.continuation;

/** States of a job that holds a turn slot: prepared for, or on its way to, a worker of its own. */
const SLOT: ReadonlySet<JobState> = new Set(['staging', 'ready', 'admitting', 'spawning']);

/**
 * Jobs whose preparation may start now, in inbox order: the first unfinished job of each conversation, when it is
 * still queued and its conversation is free, as many as turn slots are free (a job being prepared holds a slot, so
 * what it prepares for is never stale by the time the gate lets it run). Nothing starts while paused or draining.
 */
export function prepLine(
  table: JobTable,
  now: number,
  at: Hold & { maxParallel: number },
  thinking: ReadonlySet<string> = NONE,
): Job[] {
  if (stopped(at)) return [];
  let used = 0;
  const first = new Map<string, Job>();
  for (const job of [...table.values()].sort(byInboxOrder)) {
    if (SLOT.has(job.state) || job.workerLive) used++;
    if (AHEAD.has(job.state) && !first.has(job.ctx)) first.set(job.ctx, job);
  }
  const busy = busyContexts(table, now, thinking);
  const line = [...first.values()].filter((j) => j.state === 'queued' && !busy.has(j.ctx) && !heldLow(at, j));
  line.sort(byInboxOrder);
  return line.slice(0, Math.max(0, at.maxParallel - used));
}

/** Jobs the gate may pick now, in inbox order: prepared ones, and budget waits and spawn backoffs that have ended. */
export function gateLine(table: JobTable, now: number): Job[] {
  const line = [...table.values()].filter(
    (j) => j.state === 'ready' || (TIMED.has(j.state) && now >= (j.wait?.untilMs ?? 0)),
  );
  return line.sort(byInboxOrder);
}

/** Conversation turns launching or running now (a worker still exiting after its fold included). */
export function liveTurns(table: JobTable): number {
  let n = 0;
  for (const job of table.values()) if (job.workerLive || job.state === 'admitting' || job.state === 'spawning') n++;
  return n;
}

/** The jobs to launch now: the gate over the line, with the table's busy conversations and live turns. */
export function gatePicks(
  table: JobTable,
  now: number,
  at: Hold & { maxParallel: number; thinking?: ReadonlySet<string> },
): Job[] {
  if (stopped(at)) return [];
  const line = gateLine(table, now).filter((j) => !heldLow(at, j));
  const gate = { liveTurns: liveTurns(table), busy: busyContexts(table, now, at.thinking), ...at };
  return nextDispatchable(line, gate, at.maxParallel).map((i) => line[i] as Job);
}

/** Work that must end before a drain completes: jobs preparing, launching or running, exiting workers, thinkers. */
export function liveWork(table: JobTable, thinking: ReadonlySet<string> = NONE): number {
  let n = thinking.size;
  for (const job of table.values()) if (HOLDING.has(job.state) || job.workerLive) n++;
  return n;
}

/**
 * True when nothing runs and nothing waiting can start: no live work (think children included), and the line is
 * empty or held (paused or draining).
 */
export function idle(table: JobTable, hold: Hold, thinking: ReadonlySet<string> = NONE): boolean {
  if (liveWork(table, thinking) > 0) return false;
  if (hold.paused || hold.draining) return true;
  for (const job of table.values()) if (WAITING.has(job.state)) return false;
  return true;
}

/** States of a job waiting for prep or the gate. */
const WAITING: ReadonlySet<JobState> = new Set(['queued', 'ready', 'budget_wait', 'spawn_wait']);

/**
 * States a drain that gave up waiting abandons: live work. A waiting job stays pending as it is (its waiters hear
 * so at the drain's end), a launch ends within its step, a fold is left to its retries.
 */
const ABANDONABLE: ReadonlySet<JobState> = new Set(['staging', 'running']);

/** The jobs a drain that gave up waiting abandons, in inbox order. */
export function drainVictims(table: JobTable): Job[] {
  return [...table.values()].filter((j) => ABANDONABLE.has(j.state)).sort(byInboxOrder);
}

/**
 * When the reactor must wake for a budget wait, a spawn backoff or a refused fold's retry: the earliest wait still
 * ahead. A drain wakes only for fold retries (it leaves a fold to them). A wait that has ended but whose job the
 * gate cannot pick yet (no free slot, paused) needs no timer: what frees the gate wakes it. A fold retry whose
 * timer fired a little early is still ahead here, so the step re-arms for it instead of losing it.
 */
export function nextWaitWake(table: JobTable, now: number, hold: Hold): number | null {
  let earliest: number | null = null;
  for (const job of table.values()) {
    const timed = retryingFold(job) || (!hold.draining && TIMED.has(job.state));
    const until = timed ? job.wait?.untilMs : undefined;
    if (until !== undefined && until > now) earliest = Math.min(earliest ?? until, until);
  }
  return earliest;
}

/** A folding job whose commit the store refused: it is tried again once `wait.untilMs` has passed. */
export function retryingFold(job: Job): boolean {
  return job.state === 'folding' && job.foldAttempts > 0;
}

/** Jobs waiting for prep or the gate, in inbox order (a drain's leftovers). */
export function waitingJobs(table: JobTable): Job[] {
  return [...table.values()].filter((j) => WAITING.has(j.state)).sort(byInboxOrder);
}

/**
 * The numbers `status` and the gauges report: `queued` waits for prep or the gate (budget waits included, as they
 * keep their place in line), `running_turns` counts live turn workers (one still exiting after its fold included).
 */
export function statusCounts(
  table: JobTable,
  principal?: string,
): { queued: number; staging: number; running_turns: number } {
  const counts = { queued: 0, staging: 0, running_turns: 0 };
  for (const job of table.values()) {
    if (principal !== undefined && job.principal !== principal) continue;
    if (WAITING.has(job.state)) counts.queued++;
    else if (job.state === 'staging') counts.staging++;
    if (job.workerLive) counts.running_turns++;
  }
  return counts;
}

/** How many jobs are in each state. */
export function jobCounts(table: JobTable): Record<JobState, number> {
  const counts = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
  for (const job of table.values()) counts[job.state]++;
  return counts;
}

/** Whether a message (not a goal continuation) of `ctx` waits for prep or the gate, or is being prepared. */
export function messageWaiting(table: JobTable, ctx: string): boolean {
  for (const job of table.values()) {
    if (job.ctx !== ctx || job.continuation) continue;
    if (WAITING.has(job.state) || job.state === 'staging') return true;
  }
  return false;
}

/** Conversations with a job on its way: waiting, preparing or launching (steering's "a message is pending"). */
export function pendingContexts(table: JobTable): Set<string> {
  const out = new Set<string>();
  for (const job of table.values()) {
    if (WAITING.has(job.state) || job.state === 'staging' || job.state === 'admitting') out.add(job.ctx);
  }
  return out;
}

/**
 * Whether the event's outcome is still to come in this process: an outcome waiter waits rather than read the store.
 * A done job's outcome is in the store; an abandoned one's never comes here (it replays on the next start).
 */
export function isPending(table: JobTable, eventId: string): boolean {
  const state = table.get(eventId)?.state;
  return state !== undefined && state !== 'done' && state !== 'abandoned';
}

export interface GateState {
  /** Conversation turns running now (think children do not count). */
  liveTurns: number;
  /** Conversations with a live turn or think child bound to them. */
  busy: ReadonlySet<string>;
  paused: boolean;
  draining: boolean;
}

/**
 * Indices of the jobs to start now, front to back: at most `maxParallel` live turns, one writer per conversation.
 * A blocked job keeps its place; a later job of the same conversation never overtakes an earlier one.
 */
export function nextDispatchable(queue: readonly { ctx: string }[], gate: GateState, maxParallel: number): number[] {
  if (gate.paused || gate.draining) return [];
  const picked: number[] = [];
  const claimed = new Set(gate.busy);
  let live = gate.liveTurns;
  for (let i = 0; i < queue.length && live < maxParallel; i++) {
    const job = queue[i] as { ctx: string };
    if (claimed.has(job.ctx)) continue;
    claimed.add(job.ctx);
    picked.push(i);
    live++;
  }
  return picked;
}

/** Drops finished jobs whose worker is gone (they answer no query any more). */
export function pruneJobs(table: JobTable): JobTable {
  const kept = [...table].filter(([, j]) => !((j.state === 'done' || j.state === 'abandoned') && !j.workerLive));
  return kept.length === table.size ? table : new Map(kept);
}
