// The round loop's decisions (reference §11): the guards at the top of a round, what a model response leads to,
// and what happens to each tool call before it runs. Pure: the loop in roundLoop.ts only switches on these.
import type { FinishArgs } from '../protocol/frames.js';
import type { ToolCall } from '../protocol/messages.js';
import type { TurnStatus } from '../protocol/status.js';
import type { LoopCounts } from './loopGuard.js';
import { loopError, observeCall } from './loopGuard.js';
import { decideStructured } from './structuredAnswer.js';

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
}

export type NextStep =
  | { kind: 'act'; calls: ToolCall[] }
  | { kind: 'answer'; text: string; value?: unknown }
  | { kind: 'reask'; text: string; reason: string; correction: string }
  | { kind: 'stop'; status: TurnStatus; text: string; error: string };

/** Branches on tool calls only (the stop reason is never consulted), then applies §11.6 / §12. */
export function nextStep(response: { text?: string; toolCalls: ToolCall[] }, turn: AnswerView): NextStep {
  if (response.toolCalls.length > 0) return { kind: 'act', calls: response.toolCalls };
  const text = response.text ?? turn.lastText ?? '';
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
