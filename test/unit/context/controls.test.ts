import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  continuationText,
  controlsOf,
  GOAL_IDLE_LIMIT,
  type GoalFacts,
  type GoalTurn,
  newGoal,
  nextGoalStep,
  sideResultNote,
} from '../../../src/context/controls.js';

const idle: GoalFacts = { queued: false, paused: false, draining: false };
const worked: GoalTurn = { status: 'completed', toolCalls: 2, tokens: 100, continuation: true, planMode: false };

describe('controlsOf', () => {
  it('defaults to execute mode with no goal, no parent, no proposal', () => {
    assert.deepEqual(controlsOf({}), { mode: 'execute', goal: null, side_of: null, proposal: null });
  });
});

describe('nextGoalStep', () => {
  it('continues at an idle boundary, counting the turn, its tokens and the continuation', () => {
    const step = nextGoalStep(newGoal('ship it', null, 0), worked, idle, 5);
    assert.equal(step.kind, 'continue');
    assert.deepEqual(
      [step.goal.turns, step.goal.tokens, step.goal.continuations, step.goal.idle_streak, step.goal.updated],
      [1, 100, 1, 0, 5],
    );
  });

  it('holds while a message waits or the agent is paused: user input and other work go first', () => {
    assert.deepEqual(nextGoalStep(newGoal('g', null, 0), worked, { ...idle, queued: true }, 1).kind, 'hold');
    const paused = nextGoalStep(newGoal('g', null, 0), worked, { ...idle, paused: true }, 1);
    assert.ok(paused.kind === 'hold' && paused.why === 'paused');
    const plan = nextGoalStep(newGoal('g', null, 0), { ...worked, planMode: true }, idle, 1);
    assert.ok(plan.kind === 'hold' && plan.why === 'plan mode');
  });

  it('holds while a later turn of the conversation already runs (it started during this fold)', () => {
    // Without the hold a continuation is accepted beside a running one, and the goal runs one turn too many.
    const live = nextGoalStep(newGoal('g', null, 0), worked, { ...idle, live: true }, 1);
    assert.ok(live.kind === 'hold' && live.why === 'a turn is running');
    assert.equal(nextGoalStep(newGoal('g', null, 0), worked, idle, 1).kind, 'continue');
  });

  it('stops on a cancel or a budget refusal, saying why', () => {
    const cancelled = nextGoalStep(newGoal('g', null, 0), { ...worked, status: 'cancelled' }, idle, 1);
    assert.ok(cancelled.kind === 'stop' && cancelled.event === 'goal.stopped');
    assert.equal(cancelled.goal.status, 'stopped');
    assert.match(cancelled.goal.reason ?? '', /cancelled/);
    const refused = nextGoalStep(newGoal('g', null, 0), { ...worked, status: 'refused' }, idle, 1);
    assert.ok(refused.kind === 'stop' && /budget/.test(refused.goal.reason ?? ''));
  });

  it('stops at its own token budget (budget_limited)', () => {
    const under = nextGoalStep(newGoal('g', 250, 0), worked, idle, 1);
    assert.equal(under.kind, 'continue', 'premise: 100 of 250 continues');
    const over = nextGoalStep({ ...under.goal, tokens: 200 }, worked, idle, 2);
    assert.ok(over.kind === 'stop' && over.event === 'goal.budget_limited');
    assert.equal(over.goal.status, 'budget_limited');
  });

  it(`marks the goal stuck after ${GOAL_IDLE_LIMIT} continuations in a row without a tool call`, () => {
    const quiet: GoalTurn = { ...worked, toolCalls: 0 };
    const first = nextGoalStep(newGoal('g', null, 0), quiet, idle, 1);
    assert.equal(first.kind, 'continue');
    assert.equal(first.goal.idle_streak, 1);
    const second = nextGoalStep(first.goal, quiet, idle, 2);
    assert.ok(second.kind === 'stop' && second.event === 'goal.stuck');
    // A user's turn without tools does not count toward stuck; a turn with tools resets the streak.
    const user = nextGoalStep(first.goal, { ...quiet, continuation: false }, idle, 2);
    assert.equal(user.goal.idle_streak, 1);
    assert.equal(nextGoalStep(first.goal, worked, idle, 2).goal.idle_streak, 0);
  });
});

describe('continuationText and sideResultNote', () => {
  it('name the objective and what was spent; a side report is clipped', () => {
    const text = continuationText({ ...newGoal('ship v2', null, 0), continuations: 3, turns: 4, tokens: 900 });
    assert.match(text, /^\[goal\] Continue working toward the goal: ship v2/);
    assert.match(text, /continuation 3; 4 turns and 900 tokens/);
    assert.equal(sideResultNote('side-1', 'completed', ' done '), 'side task side-1 completed: done');
    assert.ok(sideResultNote('side-1', 'failed', 'x'.repeat(3000)).endsWith('…'));
  });
});
