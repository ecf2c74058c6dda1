// The round loop's decisions (reference §11): the guards at the top of a round, what a model response leads to
// (with the wrap-up checks of wrapUp.ts), and what happens to each tool call before it runs. Pure: the loop in
// roundLoop.ts only switches on these.
import type { FinishArgs } from '../protocol/frames.js';
import type { ToolCall } from '../protocol/messages.js';
import type { TurnStatus } from '../protocol/status.js';
import type { LoopCounts } from './loopGuard.js';
import { loopError, observeCall } from './loopGuard.js';
import { decideStructured } from './structuredAnswer.js';
import type { WrapUpAction, WrapUpAnswer, WrapUpCheck, WrapUpState, WrapUpStep } from './wrapUp.js';
import { checkAnswer, checkToolCalls, initWrapUp, joinedText } from './wrapUp.js';

/** The per-response output cap when the spec gives none (reference §19). */
export const DEFAULT_TOKENS_PER_CALL = 4096;

/** What the guards need to know at the top of a round. */
export interface GuardView {
  cancelled: boolean;
  now: number;
  /** Absolute ms; Infinity when the turn has no deadline. */
  deadlineAt: number;
  /** Set when the deadline timer fired (clocks may disagree by a millisecond). */
  deadlineHit: boolean;
  rounds: number;
  maxRounds: number;
  tokensUsed: number;
  /** 0 ⇒ unbounded. */
  maxTokens: number;
}

/** Guards in the fixed order cancel → deadline → rounds → tokens; null means run the round (§11.2). */
export function checkGuards(g: GuardView): TurnStatus | null {
  if (g.cancelled) return 'cancelled';
  if (g.deadlineHit || g.now >= g.deadlineAt) return 'deadline';
  if (g.rounds >= g.maxRounds) return 'exhausted_steps';
  if (g.maxTokens > 0 && g.tokensUsed >= g.maxTokens) return 'exhausted_tokens';
  return null;
}

/** The part of the turn the answer decision reads. */
export interface AnswerView {
  /** Kind think, or an output schema present (§12). */
  structured: boolean;
  schema?: Record<string, unknown>;
  reasks: number;
  lastText?: string;
  /** The wrap-up checks' memory; absent ⇒ a fresh state with a 4096-token cap. */
  wrap?: WrapUpState;
  /** The turn's output cap before any raise (default 4096). */
  baseCap?: number;
  /** At least one tool call ran in this turn. */
  workDone?: boolean;
}

/** Marks an answer or a stop that a wrap-up check produced, for its `turn.wrapup` event. */
export interface WrapUpMark {
  check: WrapUpCheck;
  attempt: number;
  action: 'give_up' | 'fail';
}

export type NextStep =
  | { kind: 'act'; calls: ToolCall[]; text?: string }
  | { kind: 'answer'; text: string; value?: unknown; note?: string; wrapup?: WrapUpMark }
  | { kind: 'reask'; text: string; reason: string; correction: string }
  | { kind: 'stop'; status: TurnStatus; text?: string; error: string; wrapup?: WrapUpMark }
  | { kind: 'wrapup'; action: WrapUpAction };

/** The answer fields nextStep reads (a ModelResponse fits). */
export type AnswerInput = WrapUpAnswer;

function fromWrapUp(step: WrapUpStep, text: string): NextStep {
  switch (step.kind) {
    case 'give_up':
      return {
        kind: 'answer',
        text,
        note: step.note,
        wrapup: { check: step.check, attempt: step.attempt, action: 'give_up' },
      };
    case 'fail':
      return {
        kind: 'stop',
        status: 'failed',
        error: step.error,
        wrapup: { check: step.check, attempt: step.attempt, action: 'fail' },
      };
    default:
      return { kind: 'wrapup', action: step };
  }
}

/**
 * Tool calls mean act — unless the length limit cut their arguments (wrap-up check d); the stop reason alone never
 * vetoes a call. Without calls, the wrap-up checks (a)–(c) run, then §11.6 / §12 decide the answer.
 */
export function nextStep(response: AnswerInput, turn: AnswerView): NextStep {
  const baseCap = turn.baseCap ?? DEFAULT_TOKENS_PER_CALL;
  const view = {
    state: turn.wrap ?? initWrapUp(baseCap),
    baseCap,
    workDone: turn.workDone ?? false,
    structured: turn.structured,
  };
  const joined = joinedText(view.state, response.text);
  if (response.toolCalls.length > 0) {
    const truncated = checkToolCalls(response, view);
    if (truncated) return fromWrapUp(truncated, joined);
    return joined === ''
      ? { kind: 'act', calls: response.toolCalls }
      : { kind: 'act', calls: response.toolCalls, text: joined };
  }
  const wrapUp = checkAnswer(response, view);
  if (wrapUp) return fromWrapUp(wrapUp, joined);
  const text = joined !== '' ? joined : (response.text ?? turn.lastText ?? '');
  if (!turn.structured) return { kind: 'answer', text };
  const decision = decideStructured(text, turn.schema, turn.reasks);
  switch (decision.kind) {
    case 'accept':
      return { kind: 'answer', text, value: decision.value };
    case 'reask':
      return { kind: 'reask', text, reason: decision.reason, correction: decision.correction };
    case 'fail':
      return { kind: 'stop', status: 'failed', text, error: decision.error };
  }
}

export type CallStep =
  | { kind: 'seal'; status: 'cancelled' | 'deadline' }
  | { kind: 'loop'; counts: Map<string, number>; error: string }
  | { kind: 'run'; counts: Map<string, number> };

/**
 * Classifies one tool call before anything runs: cancel seals it (uncounted); otherwise it counts toward the
 * turn and the LOOP_REPEATS-th identical call ends the turn without running.
 */
export function nextCallStep(call: ToolCall, stopped: 'cancelled' | 'deadline' | null, counts: LoopCounts): CallStep {
  if (stopped !== null) return { kind: 'seal', status: stopped };
  const verdict = observeCall(counts, call.name, call.arguments);
  if (verdict.looped) return { kind: 'loop', counts: verdict.counts, error: loopError(call.name) };
  return { kind: 'run', counts: verdict.counts };
}

/** The text a turn ended by `finish` reports: the model's last text, else the finish output (§11.4). */
export function finishText(lastText: string | undefined, finish: FinishArgs): string | undefined {
  if (lastText !== undefined) return lastText;
  const output = finish.output;
  if (output === undefined || output === null) return undefined;
  return typeof output === 'string' ? output : JSON.stringify(output);
}
