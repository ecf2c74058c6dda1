// The job table as pure policy (DESIGN "job table: one state per job"): each accepted inbox event is one job, and
// its state changes only through `transition`. No I/O and no clock of its own: the reactor passes `now` and
// carries out the effects; busy/idle, cancel, drain and status are queries over the table.
import type { TurnStatus } from '../protocol/status.js';

/**
 * Where a job is. `launching`: the reactor took it off the gate and is checking ownership, building the snapshot and
 * asking the budget, all within one step. `abandoned`: a drain stopped it; its inbox event stays pending and
 * replays on the next start (nobody folds it in this process).
 */
export const JOB_STATES = [
  'queued',
  'launching',
  'staging',
  'budget_wait',
  'running',
  'folding',
  'done',
  'abandoned',
] as const;

export type JobState = (typeof JOB_STATES)[number];

/** One job: plain data, replaced (never mutated) by each transition. */
export interface Job {
  readonly eventId: string;
  readonly ctx: string;
  readonly principal: string | null;
  /** A goal continuation (a message of the same conversation waiting makes it stale). */
  readonly continuation: boolean;
  readonly state: JobState;
  /** When the job entered `state` (ms). */
  readonly since: number;
  /** Replayed from the store at restore rather than accepted by this process. */
  readonly replayed: boolean;
  /** Staging (preflight, knowledge, skills) has run: the gate never stages it again. */
  readonly prepared: boolean;
  /** The budget's wait, while `budget_wait`. */
  readonly wait?: { readonly untilMs: number; readonly reason: string };
  /** The live worker's node and turn id, from `spawned` on. */
  readonly turn?: { readonly node: number; readonly turnId: string };
  /** Its worker process still runs (it exits after `turn_done`, or after a kill): the conversation stays busy. */
  readonly workerLive: boolean;
  /** Why a cancel was asked while the turn ran; the worker then ends the turn as cancelled. */
  readonly cancelReason?: string;
  /** Failed commit attempts of its fold. */
  readonly foldAttempts: number;
}

/** What happens to a job. Creation (`accepted`, `replayed`) goes through `addJob`. */
export type JobEvent =
  | { type: 'gate_picked' }
  | { type: 'stage' }
  | { type: 'prepared' }
  | { type: 'answered' }
  | { type: 'budget_wait'; untilMs: number; reason: string }
  | { type: 'budget_room' }
  | { type: 'budget_admitted' }
  | { type: 'budget_refused'; reason: string }
  | { type: 'launch_failed'; status: TurnStatus; error: string }
  | { type: 'spawned'; node: number; turnId: string }
  | { type: 'turn_done' }
  | { type: 'worker_gone'; endReason?: { status: TurnStatus; error: string } }
  | { type: 'fold_committed' }
  | { type: 'fold_failed' }
  | { type: 'cancel'; reason: string }
  | { type: 'drain_abandon' };

/** What the reactor must do after a transition. */
export type JobEffect =
  /** Re-run the gate: a conversation may be free, or a job is back in line. */
  | { kind: 'wake' }
  | { kind: 'start_staging' }
  | { kind: 'kill_preflight' }
  | { kind: 'build_and_admit' }
  | { kind: 'arm_wait'; untilMs: number }
  | { kind: 'forget_wait' }
  | { kind: 'spawn' }
  /** Fold the job: `turn` the worker's result; `reply` staging's answer; `not_run` the budget's refusal. */
  | { kind: 'fold'; from: 'turn' | 'reply' | 'not_run' }
  /** Fold a result the supervisor makes (cancelled before a turn, a failed launch, a worker gone silent). */
  | { kind: 'fold'; from: 'synthetic'; status: TurnStatus; error: string }
  | { kind: 'retry_fold' }
  | { kind: 'send_cancel'; reason: string }
  | { kind: 'kill_worker' }
  /** The fold is durable: waiters hear the outcome, steering hears what the turn leads to. */
  | { kind: 'announce' }
  /** Waiters hear that the message stays pending and replays on the next start. */
  | { kind: 'announce_abandoned' };

/** Why an event does not apply to a job in its state. */
export type JobRefusal = {
  refused: true;
  eventId: string;
  state: JobState | 'unknown';
  event: JobEvent['type'] | 'accepted' | 'replayed';
  reason: 'unknown_job' | 'duplicate' | 'illegal' | 'still_waiting' | 'finished';
};

export type JobStep = { refused: false; job: Job; effects: JobEffect[] } | JobRefusal;

/** A table-level step: the new table (a copy; the old one is untouched), or the refusal. */
export type TableStep = { refused: false; table: JobTable; job: Job; effects: JobEffect[] } | JobRefusal;

/** Jobs by inbox event id. Inbox ids sort by acceptance time, so id order is inbox order. */
export type JobTable = ReadonlyMap<string, Job>;

export interface NewJob {
  eventId: string;
  ctx: string;
  principal: string | null;
  continuation?: boolean;
}

/** A new queued job for an accepted (or, at restore, replayed) inbox event. */
export function newJob(input: NewJob, now: number, replayed = false): Job {
  return {
    eventId: input.eventId,
    ctx: input.ctx,
    principal: input.principal,
    continuation: input.continuation ?? false,
    state: 'queued',
    since: now,
    replayed,
    prepared: false,
    workerLive: false,
    foldAttempts: 0,
  };
}

const go = (job: Job, state: JobState, now: number, effects: JobEffect[], patch: Partial<Job> = {}): JobStep => ({
  refused: false,
  job: { ...job, ...patch, state, since: state === job.state ? job.since : now },
  effects,
});

const refuse = (job: Job, event: JobEvent, reason: JobRefusal['reason']): JobRefusal => ({
  refused: true,
  eventId: job.eventId,
  state: job.state,
  event: event.type,
  reason,
});

const CANCELLED = 'cancelled' as const;
const wake: JobEffect = { kind: 'wake' };

/** The cancel of a job that has no turn yet: it folds as cancelled and frees its conversation. */
function cancelUnstarted(job: Job, reason: string, now: number, extra: JobEffect[]): JobStep {
  const fold: JobEffect = { kind: 'fold', from: 'synthetic', status: CANCELLED, error: reason };
  return go(job, 'folding', now, [...extra, fold, wake], { wait: undefined });
}

function fromQueued(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'gate_picked':
      return go(job, 'launching', now, [{ kind: 'build_and_admit' }]);
    case 'cancel':
      return cancelUnstarted(job, e.reason, now, []);
    case 'drain_abandon':
      return go(job, 'abandoned', now, [{ kind: 'announce_abandoned' }]);
    default:
      return refuse(job, e, 'illegal');
  }
}

function fromLaunching(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'stage':
      return job.prepared ? refuse(job, e, 'illegal') : go(job, 'staging', now, [{ kind: 'start_staging' }]);
    case 'budget_wait':
      return go(job, 'budget_wait', now, [{ kind: 'arm_wait', untilMs: e.untilMs }], {
        wait: { untilMs: e.untilMs, reason: e.reason },
      });
    case 'budget_admitted':
      return go(job, 'launching', now, [{ kind: 'spawn' }]);
    case 'budget_refused':
      return go(job, 'folding', now, [{ kind: 'fold', from: 'not_run' }, wake]);
    case 'launch_failed':
      return go(job, 'folding', now, [{ kind: 'fold', from: 'synthetic', status: e.status, error: e.error }, wake]);
    case 'spawned':
      return go(job, 'running', now, [], { turn: { node: e.node, turnId: e.turnId }, workerLive: true });
    default:
      // A cancel or a drain cannot land mid-launch: the launch runs within one reactor step.
      return refuse(job, e, 'illegal');
  }
}

function fromStaging(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'prepared':
      return go(job, 'queued', now, [wake], { prepared: true });
    case 'answered':
      return go(job, 'folding', now, [{ kind: 'fold', from: 'reply' }, wake], { prepared: true });
    case 'cancel':
      return cancelUnstarted(job, e.reason, now, [{ kind: 'kill_preflight' }]);
    case 'drain_abandon':
      return go(job, 'abandoned', now, [{ kind: 'kill_preflight' }, { kind: 'announce_abandoned' }]);
    default:
      return refuse(job, e, 'illegal');
  }
}

function fromBudgetWait(job: Job, e: JobEvent, now: number): JobStep {
  const wait = job.wait ?? { untilMs: now, reason: '' };
  switch (e.type) {
    case 'gate_picked':
      if (now < wait.untilMs) return refuse(job, e, 'still_waiting');
      return go(job, 'launching', now, [{ kind: 'build_and_admit' }], { wait: undefined });
    case 'budget_room':
      return go(job, 'queued', now, [wake], { wait: undefined });
    case 'budget_wait':
      return go(job, 'budget_wait', now, [{ kind: 'arm_wait', untilMs: e.untilMs }], {
        wait: { untilMs: e.untilMs, reason: e.reason },
      });
    case 'cancel':
      return cancelUnstarted(job, e.reason, now, [{ kind: 'forget_wait' }]);
    case 'drain_abandon':
      return go(job, 'abandoned', now, [{ kind: 'forget_wait' }, { kind: 'announce_abandoned' }], { wait: undefined });
    default:
      return refuse(job, e, 'illegal');
  }
}

function fromRunning(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'turn_done':
      return go(job, 'folding', now, [{ kind: 'fold', from: 'turn' }]);
    case 'worker_gone': {
      // No turn_done: the turn fails with why the supervisor ended it, else as a worker that died (reference §1.6).
      const end = e.endReason ??
        (job.cancelReason !== undefined ? { status: CANCELLED, error: job.cancelReason } : undefined) ?? {
          status: 'failed' as const,
          error: 'worker exited without a result',
        };
      const fold: JobEffect = { kind: 'fold', from: 'synthetic', status: end.status, error: end.error };
      return go(job, 'folding', now, [fold, wake], { workerLive: false });
    }
    case 'cancel':
      if (job.cancelReason !== undefined) return go(job, 'running', now, []);
      return go(job, 'running', now, [{ kind: 'send_cancel', reason: e.reason }], { cancelReason: e.reason });
    case 'drain_abandon':
      return go(job, 'abandoned', now, [{ kind: 'kill_worker' }, { kind: 'announce_abandoned' }]);
    default:
      return refuse(job, e, 'illegal');
  }
}

/** A worker exits after its turn_done, or after a drain's kill: the conversation is free from then on. */
function workerExit(job: Job, now: number): JobStep {
  return go(job, job.state, now, job.workerLive ? [wake] : [], { workerLive: false });
}

function fromFolding(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'fold_committed':
      return go(job, 'done', now, [{ kind: 'announce' }]);
    case 'fold_failed':
      return go(job, 'folding', now, [{ kind: 'retry_fold' }], { foldAttempts: job.foldAttempts + 1 });
    case 'worker_gone':
      return workerExit(job, now);
    case 'cancel':
      return refuse(job, e, 'finished');
    default:
      // A drain leaves a fold to its retries: if the store never takes it, the event replays on the next start.
      return refuse(job, e, 'illegal');
  }
}

function fromFinished(job: Job, e: JobEvent, now: number): JobStep {
  return e.type === 'worker_gone' ? workerExit(job, now) : refuse(job, e, 'finished');
}

/** One rule per state; a new state without its rule does not compile. */
const RULES: Record<JobState, (job: Job, e: JobEvent, now: number) => JobStep> = {
  queued: fromQueued,
  launching: fromLaunching,
  staging: fromStaging,
  budget_wait: fromBudgetWait,
  running: fromRunning,
  folding: fromFolding,
  done: fromFinished,
  abandoned: fromFinished,
};

/** The one transition function: the job's next state and what the reactor must do, or why the event is refused. */
export function transition(job: Job, event: JobEvent, now: number): JobStep {
  return RULES[job.state](job, event, now);
}

/** Adds a job for an accepted or replayed event; an id already in the table is refused (never queued twice). */
export function addJob(table: JobTable, input: NewJob, now: number, how: 'accepted' | 'replayed'): TableStep {
  const known = table.get(input.eventId);
  if (known) return { refused: true, eventId: input.eventId, state: known.state, event: how, reason: 'duplicate' };
  const job = newJob(input, now, how === 'replayed');
  return { refused: false, table: new Map(table).set(job.eventId, job), job, effects: [wake] };
}

/** Applies `event` to the job answering `eventId`; the table is replaced only when the event applies. */
export function applyJobEvent(table: JobTable, eventId: string, event: JobEvent, now: number): TableStep {
  const job = table.get(eventId);
  if (!job) return { refused: true, eventId, state: 'unknown', event: event.type, reason: 'unknown_job' };
  const step = transition(job, event, now);
  if (step.refused) return step;
  return { refused: false, table: new Map(table).set(eventId, step.job), job: step.job, effects: step.effects };
}

/** Drops finished jobs whose worker is gone (they answer no query any more). */
export function pruneJobs(table: JobTable): JobTable {
  const kept = [...table].filter(([, j]) => !((j.state === 'done' || j.state === 'abandoned') && !j.workerLive));
  return kept.length === table.size ? table : new Map(kept);
}
