// The job table as pure policy (DESIGN "job table: one state per job"): each accepted inbox event is one job, and
// its state changes only through `transition`. No I/O and no clock of its own: the reactor passes `now` and
// carries out the effects; busy/idle, cancel, drain and status are queries over the table (jobQueries.ts).
import type { TurnErrorKind, TurnStatus } from '../protocol/status.js';
import { foldRetry, spawnRetryDelay } from './backoff.js';
import type { NotRunKind } from './fold.js';

/**
 * Where a job is, in the order data flows (inbox → prep → gate → launch → fold):
 * `queued` waits for its conversation's turn to be prepared; `staging` runs preflight, knowledge and skills;
 * `ready` waits for the gate; `admitting` builds the snapshot and asks the budget; `budget_wait` is deferred by
 * it; `spawning` is admitted and gets its turn id and worker; `spawn_wait`: its worker could not be started for
 * lack of resources, and it is admitted again once `wait.untilMs` passed; `running` has a worker; `folding` is on
 * its way to the store. `abandoned`: a drain stopped it; its inbox event stays pending and replays on the next start.
 */
export const JOB_STATES = [
  'queued',
  'staging',
  'ready',
  'admitting',
  'budget_wait',
  'spawning',
  'spawn_wait',
  'running',
  'folding',
  'done',
  'abandoned',
] as const;

export type JobState = (typeof JOB_STATES)[number];

/** Why a job ends without a turn result of its own: the fold's synthetic result. */
export interface JobEnd {
  readonly status: TurnStatus;
  readonly error: string;
  readonly kind: TurnErrorKind;
}

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
  /** The budget's wait, while `budget_wait`; the backoff of a refused spawn (`spawn_wait`) or fold (`folding`). */
  readonly wait?: { readonly untilMs: number; readonly reason: string };
  /** The live worker's node and turn id, from `spawned` on. */
  readonly turn?: { readonly node: number; readonly turnId: string };
  /** Its worker process still runs (it exits after `turn_done`, or after a kill): the conversation stays busy. */
  readonly workerLive: boolean;
  /** Why a cancel was asked while the job launched or ran; it folds (or its worker ends the turn) as cancelled. */
  readonly cancelReason?: string;
  /** A cancelled job's turn_done came while its worker runs: it folds once the worker is gone (a drain kills it). */
  readonly turnDone?: true;
  /** Failed commit attempts of its fold. */
  readonly foldAttempts: number;
  readonly spawnAttempts?: number; // spawns refused for lack of resources so far (the backoff grows with them)
}

/** What happens to a job. Creation (`accepted`, `replayed`) goes through `addJob`. */
export type JobEvent =
  /** Its conversation is free and it is next there: staging starts (skill references, preflight, knowledge). */
  | { type: 'prep_start' }
  /** Nothing (more) to prepare: it waits for the gate. */
  | { type: 'prepared' }
  /** Staging answered it without a turn (a preflight `status` or `clarify`). */
  | { type: 'answered' }
  | { type: 'gate_picked' }
  | { type: 'budget_wait'; untilMs: number; reason: string }
  | { type: 'budget_room' }
  | { type: 'budget_admitted' }
  | { type: 'budget_refused'; reason: string; admission: NotRunKind }
  /** It cannot run: not the conversation's owner, a stale continuation, a snapshot or spawn that failed. */
  | { type: 'launch_failed'; status: TurnStatus; error: string; kind?: TurnErrorKind }
  | { type: 'spawned'; node: number; turnId: string }
  | { type: 'spawn_failed'; code: string; error: string } // no worker for lack of resources (EMFILE, …): retried
  | { type: 'turn_done' }
  /** Its worker exited; `endReason`: why the supervisor (or a `failed` frame) ended it, when it did. */
  | { type: 'worker_gone'; endReason?: JobEnd; code?: number | null; signal?: string | null }
  | { type: 'fold_committed' }
  | { type: 'fold_failed' }
  | { type: 'cancel'; reason: string }
  | { type: 'drain_abandon' };

/** What the reactor must do after a transition. */
export type JobEffect =
  /** Re-run prep and the gate: a conversation may be free, or a job is in line. */
  | { kind: 'wake' }
  | { kind: 'start_staging' }
  | { kind: 'kill_preflight' }
  | { kind: 'build_and_admit' }
  | { kind: 'arm_wait'; untilMs: number }
  | { kind: 'forget_wait' }
  | { kind: 'spawn' }
  | { kind: 'spawn_retry'; attempt: number; delayMs: number; code: string } // log it; the step arms the wait
  /** Give back the dispatch reservation of a job admitted but not spawned. */
  | { kind: 'release_reservation' }
  /** Fold the job: `turn` the worker's result; `reply` staging's answer; `not_run` the budget's refusal. */
  | { kind: 'fold'; from: 'turn' | 'reply' | 'not_run' }
  /** Fold a result the supervisor makes (cancelled before a turn, a failed launch, a worker gone silent). */
  | { kind: 'fold'; from: 'synthetic'; end: JobEnd }
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

const wake: JobEffect = { kind: 'wake' };
const cancelled = (error: string): JobEnd => ({ status: 'cancelled', error, kind: 'cancelled' });
const synthetic = (end: JobEnd): JobEffect => ({ kind: 'fold', from: 'synthetic', end });

/** Folds a job that gets no turn (cancelled, refused, failed to launch) and frees its conversation. */
function foldWithout(job: Job, end: JobEnd, now: number, extra: JobEffect[]): JobStep {
  return go(job, 'folding', now, [...extra, synthetic(end), wake], { wait: undefined });
}

function launchFailed(job: Job, e: Extract<JobEvent, { type: 'launch_failed' }>, now: number): JobStep {
  return foldWithout(job, { status: e.status, error: e.error, kind: e.kind ?? 'worker' }, now, []);
}

/** A cancel or a drain of a job that has no turn: `undo` first releases what its state holds. */
function unstarted(job: Job, e: JobEvent, now: number, undo: JobEffect[]): JobStep {
  switch (e.type) {
    case 'cancel':
      return foldWithout(job, cancelled(e.reason), now, undo);
    case 'drain_abandon':
      return go(job, 'abandoned', now, [...undo, { kind: 'announce_abandoned' }], { wait: undefined });
    default:
      return refuse(job, e, 'illegal');
  }
}

function fromQueued(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'prep_start':
      return go(job, 'staging', now, [{ kind: 'start_staging' }]);
    case 'prepared':
      return go(job, 'ready', now, [wake]);
    case 'launch_failed':
      return launchFailed(job, e, now);
    default:
      return unstarted(job, e, now, []);
  }
}

function fromStaging(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'prepared':
      return go(job, 'ready', now, [wake]);
    case 'answered':
      return go(job, 'folding', now, [{ kind: 'fold', from: 'reply' }, wake]);
    default:
      return unstarted(job, e, now, [{ kind: 'kill_preflight' }]);
  }
}

function fromReady(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'gate_picked':
      return go(job, 'admitting', now, [{ kind: 'build_and_admit' }]);
    default:
      return unstarted(job, e, now, []);
  }
}

/** A cancel that lands while the job launches is recorded; the next launch step folds it as cancelled. */
function recordCancel(job: Job, reason: string, now: number): JobStep {
  return go(job, job.state, now, [], { cancelReason: job.cancelReason ?? reason });
}

function fromAdmitting(job: Job, e: JobEvent, now: number): JobStep {
  const asked = job.cancelReason;
  switch (e.type) {
    case 'budget_wait':
      if (asked !== undefined) return foldWithout(job, cancelled(asked), now, []);
      return go(job, 'budget_wait', now, [{ kind: 'arm_wait', untilMs: e.untilMs }], {
        wait: { untilMs: e.untilMs, reason: e.reason },
      });
    case 'budget_admitted':
      if (asked !== undefined) return foldWithout(job, cancelled(asked), now, [{ kind: 'release_reservation' }]);
      return go(job, 'spawning', now, [{ kind: 'spawn' }]);
    case 'budget_refused':
      return go(job, 'folding', now, [{ kind: 'fold', from: 'not_run' }, wake]);
    case 'launch_failed':
      return launchFailed(job, e, now);
    case 'cancel':
      return recordCancel(job, e.reason, now);
    default:
      // A drain (a lost lease) stops it now: a shared admission answers later; its reservation goes back then.
      return unstarted(job, e, now, []);
  }
}

function fromSpawning(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'spawned': {
      const patch = { turn: { node: e.node, turnId: e.turnId }, workerLive: true };
      // A cancel asked while it spawned reaches the worker now: it ends its turn as cancelled.
      const effects: JobEffect[] =
        job.cancelReason === undefined ? [] : [{ kind: 'send_cancel', reason: job.cancelReason }];
      return go(job, 'running', now, effects, patch);
    }
    case 'launch_failed':
      return launchFailed(job, e, now);
    case 'spawn_failed':
      return spawnFailed(job, e, now);
    case 'cancel':
      return recordCancel(job, e.reason, now);
    default:
      return refuse(job, e, 'illegal');
  }
}

/** A spawn refused for lack of resources waits out a growing backoff, then is admitted again (issue 13 item 1). */
function spawnFailed(job: Job, e: Extract<JobEvent, { type: 'spawn_failed' }>, now: number): JobStep {
  const gone = { ...job, turn: undefined, workerLive: false };
  if (job.cancelReason !== undefined) return foldWithout(gone, cancelled(job.cancelReason), now, []);
  const attempt = (job.spawnAttempts ?? 0) + 1;
  const delayMs = spawnRetryDelay(attempt);
  const wait = { untilMs: now + delayMs, reason: `spawn ${e.code}` };
  const retry: JobEffect = { kind: 'spawn_retry', attempt, delayMs, code: e.code };
  return go(gone, 'spawn_wait', now, [retry], { wait, spawnAttempts: attempt });
}

function fromSpawnWait(job: Job, e: JobEvent, now: number): JobStep {
  if (e.type !== 'gate_picked') return unstarted(job, e, now, []);
  if (now < (job.wait?.untilMs ?? now)) return refuse(job, e, 'still_waiting');
  return go(job, 'admitting', now, [{ kind: 'build_and_admit' }], { wait: undefined });
}

function fromBudgetWait(job: Job, e: JobEvent, now: number): JobStep {
  const wait = job.wait ?? { untilMs: now, reason: '' };
  switch (e.type) {
    case 'gate_picked':
      if (now < wait.untilMs) return refuse(job, e, 'still_waiting');
      return go(job, 'admitting', now, [{ kind: 'build_and_admit' }], { wait: undefined });
    case 'budget_room':
      return go(job, 'ready', now, [wake], { wait: undefined });
    case 'budget_wait':
      return go(job, 'budget_wait', now, [{ kind: 'arm_wait', untilMs: e.untilMs }], {
        wait: { untilMs: e.untilMs, reason: e.reason },
      });
    default:
      return unstarted(job, e, now, [{ kind: 'forget_wait' }]);
  }
}

/** Why a turn ended without turn_done: the supervisor's reason, else a cancel asked, else a worker that died. */
function goneEnd(job: Job, e: Extract<JobEvent, { type: 'worker_gone' }>): JobEnd {
  if (e.endReason) return e.endReason;
  if (job.cancelReason !== undefined) return cancelled(job.cancelReason);
  const how = e.signal ? `signal ${e.signal}` : e.code !== undefined && e.code !== null ? `exit code ${e.code}` : '';
  return { status: 'failed', error: `worker exited without a result${how ? ` (${how})` : ''}`, kind: 'worker' };
}

function fromRunning(job: Job, e: JobEvent, now: number): JobStep {
  switch (e.type) {
    case 'turn_done':
      // CANCELED shows only once the worker and its MCP servers are gone (issue 18 item 5; the kill ladder bounds it).
      if (job.cancelReason !== undefined) return go(job, 'running', now, [], { turnDone: true });
      return go(job, 'folding', now, [{ kind: 'fold', from: 'turn' }]);
    case 'worker_gone':
      if (job.turnDone) return go(job, 'folding', now, [{ kind: 'fold', from: 'turn' }, wake], { workerLive: false });
      return go(job, 'folding', now, [synthetic(goneEnd(job, e)), wake], { workerLive: false });
    case 'spawn_failed':
      return spawnFailed(job, e, now);
    case 'cancel':
      if (job.cancelReason !== undefined) return go(job, 'running', now, []);
      return go(job, 'running', now, [{ kind: 'send_cancel', reason: e.reason }], { cancelReason: e.reason });
    case 'drain_abandon':
      if (job.turnDone) return go(job, 'running', now, [{ kind: 'kill_worker' }]);
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
      return go(job, 'folding', now, [{ kind: 'retry_fold' }], foldRetry(job.foldAttempts + 1, now));
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
  staging: fromStaging,
  ready: fromReady,
  admitting: fromAdmitting,
  budget_wait: fromBudgetWait,
  spawning: fromSpawning,
  spawn_wait: fromSpawnWait,
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
