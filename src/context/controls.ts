// How callers steer a conversation (seed 003): plan mode, goals with continuation, side tasks. Pure policy over
// plain data: the supervisor's steering desk applies what these decide and writes the store.

import type { ConversationControls } from '../domain/conversation.js';
import type { Goal } from '../domain/goal.js';
import type { TurnStatus } from '../protocol/status.js';

/** Continuations in a row that may call no tool before the goal counts as stuck. */
export const GOAL_IDLE_LIMIT = 2;

/** A conversation's controls, or the defaults (execute mode, no goal, not a side task). */
export function controlsOf(conv: { controls?: ConversationControls }): ConversationControls {
  return conv.controls ?? { mode: 'execute', goal: null, side_of: null, proposal: null };
}

/** A fresh active goal. */
export function newGoal(objective: string, tokenBudget: number | null, now: number): Goal {
  return {
    objective,
    token_budget: tokenBudget,
    status: 'active',
    turns: 0,
    tokens: 0,
    continuations: 0,
    idle_streak: 0,
    created: now,
    updated: now,
  };
}

/** What a finished turn of a conversation with a goal reports. */
export interface GoalTurn {
  status: TurnStatus;
  toolCalls: number;
  tokens: number;
  /** The turn was a continuation the goal itself started. */
  continuation: boolean;
  /** The turn ran in plan mode (plan-mode turns never continue a goal). */
  planMode: boolean;
}

/** The conversation's state when deciding whether to continue. */
export interface GoalFacts {
  /** A message for this conversation is waiting (user input goes first). */
  queued: boolean;
  /** A later turn of it already runs (it may start while this one folds): its own fold decides the next step. */
  live?: boolean;
  paused: boolean;
  draining: boolean;
}

export type GoalStep =
  | { kind: 'continue'; goal: Goal }
  /** Not now (a message is queued, the agent is paused): the goal stays active; the next fold decides again. */
  | { kind: 'hold'; goal: Goal; why: string }
  | { kind: 'stop'; goal: Goal; event: 'goal.stuck' | 'goal.budget_limited' | 'goal.stopped' };

/**
 * After a turn of a conversation whose goal is active: account the turn, then continue, hold or stop.
 * A cancel or a budget refusal stops; the goal's own token budget stops; two continuations in a row without a
 * tool call mark it stuck; user input or a pause holds it.
 */
export function nextGoalStep(goal: Goal, turn: GoalTurn, facts: GoalFacts, now: number): GoalStep {
  const idle = turn.continuation && turn.toolCalls === 0;
  const spent: Goal = {
    ...goal,
    turns: goal.turns + 1,
    tokens: goal.tokens + turn.tokens,
    idle_streak: idle ? goal.idle_streak + 1 : turn.toolCalls > 0 ? 0 : goal.idle_streak,
    updated: now,
  };
  const stopped = stopReason(turn.status);
  if (stopped) return { kind: 'stop', goal: { ...spent, status: 'stopped', reason: stopped }, event: 'goal.stopped' };
  if (spent.token_budget !== null && spent.tokens >= spent.token_budget) {
    return { kind: 'stop', goal: { ...spent, status: 'budget_limited' }, event: 'goal.budget_limited' };
  }
  if (spent.idle_streak >= GOAL_IDLE_LIMIT)
    return { kind: 'stop', goal: { ...spent, status: 'stuck' }, event: 'goal.stuck' };
  if (turn.planMode) return { kind: 'hold', goal: spent, why: 'plan mode' };
  if (facts.paused || facts.draining) return { kind: 'hold', goal: spent, why: 'paused' };
  if (facts.queued) return { kind: 'hold', goal: spent, why: 'a message is waiting' };
  if (facts.live) return { kind: 'hold', goal: spent, why: 'a turn is running' };
  return { kind: 'continue', goal: { ...spent, continuations: spent.continuations + 1 } };
}

function stopReason(status: TurnStatus): string | null {
  if (status === 'cancelled') return 'the turn was cancelled';
  if (status === 'refused' || status === 'exhausted_tokens') return `the budget stopped the turn (${status})`;
  return null;
}

/** The message a continuation turn reads. */
export function continuationText(goal: Goal): string {
  return (
    `[goal] Continue working toward the goal: ${goal.objective}\n` +
    `(continuation ${goal.continuations}; ${goal.turns} turns and ${goal.tokens} tokens so far). ` +
    'When it is achieved, call goal.complete with the evidence; if you cannot make progress, say why.'
  );
}

/** The note a side task's end leaves in its parent. */
export function sideResultNote(side: string, status: TurnStatus, text: string): string {
  const chars = [...text.trim()];
  const excerpt = chars.length > 2000 ? `${chars.slice(0, 2000).join('')}…` : chars.join('');
  return `side task ${side} ${status}: ${excerpt}`;
}
