// Folding a finished turn back (reference §14.2) as pure policy: what to append and what the inbox records.
// The reactor applies the result; nothing here touches the store or the clock.

import type { InboxOutcome } from '../domain/inbox.js';
import type { TurnResult } from '../protocol/frames.js';
import type { Msg } from '../protocol/messages.js';
import type { TurnErrorKind, TurnStatus } from '../protocol/status.js';

export interface FoldPlan {
  /** The delta, then the status note and the finish note when they apply. */
  append: Msg[];
  outcome: InboxOutcome;
}

/**
 * What folding `result` into its conversation means, at time `now`. `ran`: a turn ran for it; a job that never ran
 * one (a dropped goal continuation, a cancel or failed launch before the spawn) leaves no note for the model to read.
 */
export function planFold(result: TurnResult, now: number, ran = true): FoldPlan {
  const append: Msg[] = [...result.messages];
  if (result.status !== 'completed' && ran) {
    const suffix = result.error ? `: ${result.error}` : '';
    append.push({ role: 'note', text: `turn ended with status ${result.status}${suffix}`, ts: now });
  }
  const finishStatus = result.finish ? (result.finish.status ?? 'completed') : undefined;
  if (finishStatus !== undefined) {
    append.push({ role: 'note', text: `finish called with status ${finishStatus}`, ts: now });
  }
  const outcome: InboxOutcome = { status: result.status, reply: result.text ?? '' };
  if (result.error !== undefined) outcome.error = result.error;
  if (result.error_kind !== undefined) outcome.error_kind = result.error_kind;
  if (finishStatus !== undefined) outcome.finish_status = finishStatus;
  if (result.finish?.exit === true) outcome.finish_exit = true;
  return { append, outcome };
}

/** How the budget turned a turn down: the governor's admission kind (`on_exhausted: refuse` or `fail`). */
export type NotRunKind = 'refuse' | 'fail';

/**
 * A turn the budget did not let run (reference §10.1): the note `turn not run: <reason>` and the outcome. The status
 * is `refused` for a `refuse` admission, `exhausted_tokens` for a `fail`.
 */
export function planNotRun(reason: string, kind: NotRunKind, now: number): FoldPlan {
  const status = kind === 'refuse' ? 'refused' : 'exhausted_tokens';
  return {
    append: [{ role: 'note', text: `turn not run: ${reason}`, ts: now }],
    outcome: { status, reply: '', error: `budget: ${reason}`, error_kind: 'budget' },
  };
}

/** The kind of a supervisor-made error when its maker names none: the stop its status says, else internal. */
export function kindForStatus(status: TurnStatus): TurnErrorKind {
  return status === 'cancelled' || status === 'deadline' || status === 'refused' ? status : 'internal';
}

/** The synthetic result for a turn that ended without `turn_done` (killed, crashed, a `failed` frame, not started). */
export function failedResult(error: string, status: TurnStatus = 'failed', kind = kindForStatus(status)): TurnResult {
  const usage = { input_tokens: 0, output_tokens: 0 };
  return { status, messages: [], usage, rounds: 0, tool_calls: 0, error, error_kind: kind };
}

/** A reply made without a turn (a preflight `status` or `clarify`): one assistant message, completed. */
export function deterministicResult(text: string, now: number): TurnResult {
  return {
    status: 'completed',
    messages: [{ role: 'assistant', text, tool_calls: [], ts: now }],
    text,
    usage: { input_tokens: 0, output_tokens: 0 },
    rounds: 0,
    tool_calls: 0,
  };
}
