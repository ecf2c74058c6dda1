// Carries out a wrap-up step (worker/wrapUp.ts decides it): request-only prompts, a raised cap, the question to a
// person through the ask_human round-trip. Logs `turn.wrapup`; it never chooses a step itself.
import type { ModelResponse } from '../intel/modelRequest.js';
import type { Msg } from '../protocol/messages.js';
import type { TurnDeps } from './roundLoop.js';
import { raceSignal } from './toolRunner.js';
import type { TurnEnd, TurnState } from './turnState.js';
import { appendRequestOnly, rememberReasoning } from './turnState.js';
import type { HumanAnswer, WrapUpAction, WrapUpCheck } from './wrapUp.js';
import { afterHumanAnswer, applyWrapUp } from './wrapUp.js';

/** Logs one wrap-up step: `turn.wrapup {turn, check, attempt, action}`. */
export function logWrapUp(s: TurnState, deps: TurnDeps, check: WrapUpCheck, attempt: number, action: string): void {
  deps.log.info('turn.wrapup', { turn: s.spec.turn_id, check, attempt, action });
}

/** Asks a person whether to retry; null when nobody answered (an exception counts as no answer). */
async function askHuman(s: TurnState, deps: TurnDeps, question: string, signal: AbortSignal): Promise<HumanAnswer> {
  try {
    // Not a model tool call: it is not counted and leaves nothing in the transcript.
    return await raceSignal(deps.callInternal('ask_human', { question }, s.toolCalls), signal);
  } catch {
    return null;
  }
}

/** Runs a wrap-up action; null runs another round, a TurnEnd ends the turn. */
export async function runWrapUp(
  s: TurnState,
  action: WrapUpAction,
  response: ModelResponse,
  deps: TurnDeps,
  signal: AbortSignal,
): Promise<TurnEnd | null> {
  logWrapUp(s, deps, action.check, action.attempt, action.kind);
  s.wrap = applyWrapUp(s.wrap, action);
  const ts = deps.now();
  switch (action.kind) {
    case 'continue': {
      const partial: Msg = { role: 'assistant', text: action.partial, tool_calls: [], ts };
      appendRequestOnly(s, partial);
      rememberReasoning(s, partial, response);
      appendRequestOnly(s, { role: 'user', text: action.prompt, ts });
      return null;
    }
    case 'nudge':
      appendRequestOnly(s, { role: 'user', text: action.prompt, ts });
      return null;
    case 'resend':
      // The same request again, with the raised cap: nothing is appended; the cut-off calls never ran.
      return null;
    case 'ask_human': {
      const answer = await askHuman(s, deps, action.question, signal);
      if (answer === null && deps.cancelled()) return { status: 'cancelled' };
      if (answer === null && (s.deadlineHit || deps.now() >= s.deadlineAt)) return { status: 'deadline' };
      const next = afterHumanAnswer(answer, action.attempt);
      if (next.kind === 'nudge') return runWrapUp(s, next, response, deps, signal);
      logWrapUp(s, deps, next.check, next.attempt, next.kind);
      return { status: 'failed', error: next.error, kind: 'answer' };
    }
  }
}
