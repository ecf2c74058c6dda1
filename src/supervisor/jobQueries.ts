// Queries over the job table: what the gate, busy/idle, cancel, drain and status read instead of five collections.
// Pure: the clock is an argument.

import type { TurnJob } from '../domain/job.js';
import { JOB_STATES, type Job, type JobState, type JobTable } from './jobTable.js';

/** States in which a job holds its conversation (one writer per conversation). */
const HOLDING: ReadonlySet<JobState> = new Set(['launching', 'staging', 'running']);

/** True while `job` keeps its conversation busy at `now`: launching, staging, running, waiting, or its worker exits. */
function holds(job: Job, now: number): boolean {
  if (HOLDING.has(job.state) || job.workerLive) return true;
  return job.state === 'budget_wait' && now < (job.wait?.untilMs ?? 0);
}

/** Whether conversation `ctx` is busy: a later message of it must not start (the gate keeps it blocked). */
export function isBusy(table: JobTable, ctx: string, now: number): boolean {
  for (const job of table.values()) if (job.ctx === ctx && holds(job, now)) return true;
  return false;
}

/** Every busy conversation (the gate's `busy` set). */
export function busyContexts(table: JobTable, now: number): Set<string> {
  const busy = new Set<string>();
  for (const job of table.values()) if (holds(job, now)) busy.add(job.ctx);
  return busy;
}

/** Inbox ids sort by acceptance time. */
const byInboxOrder = (a: Job, b: Job): number => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);

/** Jobs the gate may pick now, in inbox order: queued ones, and budget waits that have ended. */
export function gateLine(table: JobTable, now: number): Job[] {
  const line = [...table.values()].filter(
    (j) => j.state === 'queued' || (j.state === 'budget_wait' && now >= (j.wait?.untilMs ?? 0)),
  );
  return line.sort(byInboxOrder);
}

/** Work that must end before a drain completes: launching, staging or running jobs, and workers still exiting. */
export function liveWork(table: JobTable): number {
  let n = 0;
  for (const job of table.values()) if (HOLDING.has(job.state) || job.workerLive) n++;
  return n;
}

/**
 * True when nothing runs and nothing waiting can start: no live work, and the line is empty or held (paused or
 * draining). Think children the table does not know about are the caller's to add.
 */
export function idle(table: JobTable, hold: { paused: boolean; draining: boolean }): boolean {
  if (liveWork(table) > 0) return false;
  if (hold.paused || hold.draining) return true;
  for (const job of table.values()) if (job.state === 'queued' || job.state === 'budget_wait') return false;
  return true;
}

/** What cancelling the job answering `eventId` means in its state. */
export type CancelTarget =
  | { kind: 'unknown' }
  /** Never started: it folds as cancelled now (`kill_preflight` / `forget_wait` first, by state). */
  | { kind: 'drop'; state: 'queued' | 'staging' | 'budget_wait' }
  /** Its worker is told to seal and stop; the fold follows its turn_done or its exit. */
  | { kind: 'cancel_turn'; node: number }
  /** Already cancelling, launching within this step, or finished: nothing to do. */
  | { kind: 'none'; state: JobState };

export function cancelTarget(table: JobTable, eventId: string): CancelTarget {
  const job = table.get(eventId);
  if (!job) return { kind: 'unknown' };
  switch (job.state) {
    case 'queued':
    case 'staging':
    case 'budget_wait':
      return { kind: 'drop', state: job.state };
    case 'running':
      if (job.cancelReason !== undefined || !job.turn) return { kind: 'none', state: job.state };
      return { kind: 'cancel_turn', node: job.turn.node };
    default:
      return { kind: 'none', state: job.state };
  }
}

/** States a drain that gave up waiting abandons (a launch ends within its step; a fold is left to its retries). */
const ABANDONABLE: ReadonlySet<JobState> = new Set(['queued', 'staging', 'budget_wait', 'running']);

/** The jobs a drain that gave up waiting abandons, in inbox order. */
export function drainVictims(table: JobTable): Job[] {
  return [...table.values()].filter((j) => ABANDONABLE.has(j.state)).sort(byInboxOrder);
}

/**
 * The numbers `status` and the gauges report: `queued` waits for the gate (budget waits included, as they keep
 * their place in line), `running_turns` counts live turn workers (one still exiting after its fold included).
 */
export function statusCounts(table: JobTable): { queued: number; staging: number; running_turns: number } {
  const counts = { queued: 0, staging: 0, running_turns: 0 };
  for (const job of table.values()) {
    if (job.state === 'queued' || job.state === 'budget_wait') counts.queued++;
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

/** Whether a message (not a goal continuation) of `ctx` waits for the gate or in staging. */
export function messageWaiting(table: JobTable, ctx: string): boolean {
  for (const job of table.values()) {
    if (job.ctx !== ctx || job.continuation) continue;
    if (job.state === 'queued' || job.state === 'staging' || job.state === 'budget_wait') return true;
  }
  return false;
}

/**
 * Whether the event's outcome is still to come in this process: an outcome waiter waits rather than read the store.
 * A done job's outcome is in the store; an abandoned one's never comes here (it replays on the next start).
 */
export function isPending(table: JobTable, eventId: string): boolean {
  const state = table.get(eventId)?.state;
  return state !== undefined && state !== 'done' && state !== 'abandoned';
}

// The dispatch gate as pure policy (reference §4): which queued jobs may start now.
// No I/O: the reactor passes the queue and what is live, and starts what this returns.
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
export function nextDispatchable(queue: readonly TurnJob[], gate: GateState, maxParallel: number): number[] {
  if (gate.paused || gate.draining) return [];
  const picked: number[] = [];
  const claimed = new Set(gate.busy);
  let live = gate.liveTurns;
  for (let i = 0; i < queue.length && live < maxParallel; i++) {
    const job = queue[i] as TurnJob;
    if (claimed.has(job.ctx)) continue;
    claimed.add(job.ctx);
    picked.push(i);
    live++;
  }
  return picked;
}

/**
 * Why a delivery on behalf of `principal` may not run in a conversation owned by `owner` (reference §3.3): the
 * operator and work acting for nobody reach any conversation; anyone else only their own.
 */
export function ownershipRefusal(owner: string | null, principal: string | null): string | null {
  if (principal === null || principal === 'operator' || owner === null || owner === principal) return null;
  return 'the conversation belongs to another principal';
}
