// Wrap-up checks (seed 003 step 6): whether an answer may end the turn, or must be continued, nudged, re-sent with
// a larger output cap, or failed. Pure: the loop acts on the step, logs `turn.wrapup` and never decides itself.
import type { ToolCall } from '../protocol/messages.js';

export type WrapUpCheck = 'length' | 'reasoning' | 'empty' | 'truncated_args';

/** (a) Continuations after a cut-off answer; the next cut-off ends the turn with the joined text and a note. */
const MAX_CONTINUATIONS = 3;
/** (b) "Think less" reminders before a person is asked whether to retry. */
const MAX_REASONING_REMINDERS = 2;
/** (c) Retries of an empty wrap-up after real work; the next empty one fails the turn. */
const MAX_EMPTY_RETRIES = 1;
/** (d) The output cap doubles per re-send up to this multiple of the turn's base cap (4096 ⇒ 8192 ⇒ 16384). */
const CAP_CEILING_FACTOR = 4;

export const CONTINUE_PROMPT =
  'Your answer was cut off by the length limit. Continue exactly where it stopped; do not repeat anything.';
export const THINK_LESS_PROMPT =
  'You spent the whole output budget thinking and wrote no answer. Think less and answer now.';
export const EMPTY_ANSWER_PROMPT = 'You finished the work but wrote no final answer. Reply with the final answer now.';
export const RETRY_QUESTION =
  'The model spent its whole output budget thinking and wrote no answer, even after being reminded twice to ' +
  'think less. Should it try once more? Reply yes or no.';

export const ERR_EMPTY = 'wrap-up: the model did the work but gave no final answer';
const ERR_REASONING = 'wrap-up: the model produced no answer (all output went to reasoning)';
export const ERR_NOBODY = `${ERR_REASONING} and no person could be asked to retry`;
export const ERR_DECLINED = `${ERR_REASONING} and the person asked declined a retry`;
export const ERR_RETRY_FAILED = `${ERR_REASONING}, even after a person asked to retry`;

/** What the checks remember across the rounds of one turn. */
export interface WrapUpState {
  /** Steps taken per check so far (prompts, re-sends, the question to a person). */
  attempts: Record<WrapUpCheck, number>;
  /** Body text of cut-off answers, joined with the answer that completes them. */
  parts: string[];
  /** The output cap of the next request: the base cap, doubled per truncated-arguments re-send. */
  cap: number;
}

/** The part of a model answer the checks read. */
export interface WrapUpAnswer {
  text?: string;
  toolCalls: ToolCall[];
  stopReason: string;
  hasReasoning?: boolean;
  reasoning?: unknown;
}

export interface WrapUpView {
  state: WrapUpState;
  /** The turn's output cap before any raise. */
  baseCap: number;
  /** At least one tool call ran in this turn. */
  workDone: boolean;
  /** A structured answer (§12): only (a) and (d) apply; its own re-ask path handles the rest. */
  structured: boolean;
}

/** A step that runs another round. */
export type WrapUpAction =
  | { kind: 'continue'; check: 'length'; attempt: number; partial: string; prompt: string }
  | { kind: 'nudge'; check: 'reasoning' | 'empty'; attempt: number; prompt: string }
  | { kind: 'ask_human'; check: 'reasoning'; attempt: number; question: string }
  | { kind: 'resend'; check: 'truncated_args'; attempt: number; maxTokens: number };

/** A step that ends the turn: the answer stands with a note, or the turn fails. */
export type WrapUpEnd =
  | { kind: 'give_up'; check: 'length'; attempt: number; note: string }
  | { kind: 'fail'; check: WrapUpCheck; attempt: number; error: string };

export type WrapUpStep = WrapUpAction | WrapUpEnd;

export function initWrapUp(baseCap: number): WrapUpState {
  return { attempts: { length: 0, reasoning: 0, empty: 0, truncated_args: 0 }, parts: [], cap: baseCap };
}

/** The state after an action ran: its check's count, the pending part, the raised cap. */
export function applyWrapUp(state: WrapUpState, action: WrapUpAction): WrapUpState {
  const attempts = { ...state.attempts, [action.check]: action.attempt };
  const parts = action.kind === 'continue' ? [...state.parts, action.partial] : state.parts;
  const cap = action.kind === 'resend' ? action.maxTokens : state.cap;
  return { attempts, parts, cap };
}

/** The pending parts are consumed by the answer (or tool-call message) that completes them. */
export function clearParts(state: WrapUpState): WrapUpState {
  return state.parts.length === 0 ? state : { ...state, parts: [] };
}

/** Arguments the wire could not parse: `{_raw: "<text>"}` (reference §5.3). */
export function isTruncatedArguments(args: unknown): boolean {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  const keys = Object.keys(args);
  return keys.length === 1 && keys[0] === '_raw' && typeof (args as { _raw: unknown })._raw === 'string';
}

/** The pending parts joined with this answer's own text. */
export function joinedText(state: WrapUpState, own: string | undefined): string {
  return state.parts.join('') + (own ?? '');
}

function visible(text: string | undefined): text is string {
  return text !== undefined && text.trim() !== '';
}

/**
 * (d) Tool calls cut off by the length limit mid-arguments never run: re-send the same request with the cap
 * doubled, up to the ceiling; past it the turn fails. Null ⇒ the calls stand (the stop reason never vetoes them).
 */
export function checkToolCalls(r: WrapUpAnswer, v: WrapUpView): WrapUpStep | null {
  if (r.stopReason !== 'max_tokens' || !r.toolCalls.some((c) => isTruncatedArguments(c.arguments))) return null;
  const attempt = v.state.attempts.truncated_args + 1;
  const next = v.state.cap * 2;
  if (next <= v.baseCap * CAP_CEILING_FACTOR)
    return { kind: 'resend', check: 'truncated_args', attempt, maxTokens: next };
  const error =
    `wrap-up: a tool call's arguments were cut off by the length limit even at an output cap of ` +
    `${v.state.cap} tokens; the call was not run`;
  return { kind: 'fail', check: 'truncated_args', attempt, error };
}

/** (b) The ladder for an answer whose whole output went to reasoning: remind twice, then ask a person. */
function reasoningStep(v: WrapUpView): WrapUpStep {
  const done = v.state.attempts.reasoning;
  const attempt = done + 1;
  if (done < MAX_REASONING_REMINDERS) return { kind: 'nudge', check: 'reasoning', attempt, prompt: THINK_LESS_PROMPT };
  if (done === MAX_REASONING_REMINDERS)
    return { kind: 'ask_human', check: 'reasoning', attempt, question: RETRY_QUESTION };
  return { kind: 'fail', check: 'reasoning', attempt, error: ERR_RETRY_FAILED };
}

/**
 * The checks for an answer without tool calls, in order: (a) cut off with body text, (b) no body text and the
 * output went to reasoning, (c) empty after real work. Null ⇒ the answer stands as it is.
 */
export function checkAnswer(r: WrapUpAnswer, v: WrapUpView): WrapUpStep | null {
  const own = visible(r.text);
  if (own && r.stopReason === 'max_tokens') {
    const attempt = v.state.attempts.length + 1;
    if (attempt <= MAX_CONTINUATIONS) {
      return { kind: 'continue', check: 'length', attempt, partial: r.text as string, prompt: CONTINUE_PROMPT };
    }
    const note = `the answer was cut off by the length limit ${attempt} times; it may be incomplete`;
    return v.structured ? null : { kind: 'give_up', check: 'length', attempt, note };
  }
  // Text from earlier cut-off parts is an answer, even when the continuation itself brought nothing.
  if (own || v.state.parts.length > 0 || v.structured) return null;
  // (b) is the seed's "the whole budget went into thinking": reasoning, no text, and the length limit hit.
  const thoughtOnly = r.hasReasoning === true || r.reasoning !== undefined;
  if (thoughtOnly && r.stopReason === 'max_tokens') return reasoningStep(v);
  if (!v.workDone) return null;
  const attempt = v.state.attempts.empty + 1;
  if (attempt <= MAX_EMPTY_RETRIES) return { kind: 'nudge', check: 'empty', attempt, prompt: EMPTY_ANSWER_PROMPT };
  return { kind: 'fail', check: 'empty', attempt, error: ERR_EMPTY };
}

/** ask_human's answer as the worker receives it: null when the supervisor never answered. */
export type HumanAnswer = { result: unknown; is_error: boolean } | null;

function saysYes(reply: unknown): boolean {
  if (reply === true) return true;
  if (typeof reply === 'string') return /^\s*(y|yes|retry|ok|okay|sure)\b/i.test(reply);
  if (typeof reply === 'object' && reply !== null && !Array.isArray(reply)) {
    const r = reply as Record<string, unknown>;
    return saysYes(r.retry) || saysYes(r.answer);
  }
  return false;
}

/**
 * (b) After the question to a person: yes ⇒ one more try; no ⇒ failed; an error, no answer or a timeout ⇒ failed
 * with the reason that nobody could be asked.
 */
export function afterHumanAnswer(
  answer: HumanAnswer,
  attempt: number,
): Extract<WrapUpStep, { kind: 'nudge' | 'fail' }> {
  if (answer === null || answer.is_error) return { kind: 'fail', check: 'reasoning', attempt, error: ERR_NOBODY };
  const result = answer.result as { reply?: unknown; timed_out?: unknown } | null;
  const reply = typeof result === 'object' && result !== null && 'reply' in result ? result.reply : result;
  if (reply === null || reply === undefined || result?.timed_out === true) {
    return { kind: 'fail', check: 'reasoning', attempt, error: ERR_NOBODY };
  }
  if (!saysYes(reply)) return { kind: 'fail', check: 'reasoning', attempt, error: ERR_DECLINED };
  return { kind: 'nudge', check: 'reasoning', attempt: attempt + 1, prompt: THINK_LESS_PROMPT };
}
