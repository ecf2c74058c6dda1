// Live activity: progress frames and park/unpark fold into (phase, tool, round, tokens); a change of phase,
// tool or round publishes, token-only updates stay silent (reference §15).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Activity, type ActivityEvent, applyProgress, startActivity } from '../../../src/obs/activity.js';

const unit = { ctx: 'a2a-1', task: 'T1' };

/** Feeds events in order, one ms apart, and returns the final state and which ones published. */
function run(events: ActivityEvent[], from?: Activity): { state: Activity | undefined; published: boolean[] } {
  let state = from;
  const published: boolean[] = [];
  events.forEach((e, i) => {
    const step = applyProgress(state, e, 1000 + i, unit);
    state = step.state;
    published.push(step.publish);
  });
  return { state, published };
}

describe('startActivity', () => {
  it('starts thinking in round 0 with no tool and no tokens, naming the unit', () => {
    assert.deepEqual(startActivity(unit, 5), {
      task: 'T1',
      ctx: 'a2a-1',
      phase: 'thinking',
      tool: null,
      round: 0,
      tokens_in: 0,
      tokens_out: 0,
      started_ms: 5,
      updated_ms: 5,
    });
    assert.equal('task' in startActivity({ ctx: 'c' }, 5), false);
  });
});

describe('applyProgress', () => {
  it('follows a turn through think, round, tool, park, unpark and the next round', () => {
    const { state, published } = run([
      { event: 'turn.think', fields: { turn: 7, round: 1 } },
      { event: 'turn.round', fields: { turn: 7, round: 1, tool_calls: 0, tokens_in: 100, tokens_out: 20 } },
      { event: 'turn.tool', fields: { turn: 7, tool: 'web.fetch', i: 1, of: 2 } },
      { event: 'tool.park', fields: { tool: 'ask_human' } },
      { event: 'tool.unpark', fields: {} },
      { event: 'turn.think', fields: { turn: 7, round: 2 } },
      { event: 'turn.round', fields: { turn: 7, round: 2, tool_calls: 2, tokens_in: 250, tokens_out: 45 } },
    ]);
    assert.deepEqual(published, [true, false, true, true, true, true, false]);
    assert.deepEqual(state, {
      task: 'T1',
      ctx: 'a2a-1',
      phase: 'thinking',
      tool: null,
      round: 2,
      tokens_in: 250,
      tokens_out: 45,
      started_ms: 1000,
      updated_ms: 1006,
    });
  });

  it('publishes the first event of a unit even when it changes nothing', () => {
    const step = applyProgress(undefined, { event: 'turn.think', fields: { round: 0 } }, 10, unit);
    assert.equal(step.publish, true);
    assert.equal(step.state.ctx, 'a2a-1');
    assert.equal(applyProgress(undefined, { event: 'turn.think', fields: {} }, 10).state.ctx, '');
  });

  it('keeps token-only updates silent but records them', () => {
    const { state, published } = run([
      { event: 'turn.think', fields: { round: 3 } },
      { event: 'turn.round', fields: { round: 3, tokens_in: 10, tokens_out: 1 } },
      { event: 'turn.round', fields: { round: 3, tokens_in: 30, tokens_out: 4 } },
    ]);
    assert.deepEqual(published, [true, false, false]);
    assert.equal(state?.tokens_in, 30);
    assert.equal(state?.tokens_out, 4);
    assert.equal(state?.updated_ms, 1002);
  });

  it('takes the reported running totals, never counting a round twice or going backwards', () => {
    const { state } = run([
      { event: 'turn.round', fields: { round: 1, tokens_in: 100, tokens_out: 10 } },
      { event: 'turn.round', fields: { round: 2, tokens_in: 300, tokens_out: 30 } },
      { event: 'turn.round', fields: { round: 2, tokens_in: 5, tokens_out: 'x' } },
    ]);
    assert.equal(state?.tokens_in, 300);
    assert.equal(state?.tokens_out, 30);
  });

  it('publishes a change of tool within the tool phase, not a repeat of the same tool', () => {
    const { published, state } = run([
      { event: 'turn.think', fields: { round: 1 } },
      { event: 'turn.tool', fields: { tool: 'a', i: 1, of: 3 } },
      { event: 'turn.tool', fields: { tool: 'a', i: 2, of: 3 } },
      { event: 'turn.tool', fields: { tool: 'b', i: 3, of: 3 } },
    ]);
    assert.deepEqual(published, [true, true, false, true]);
    assert.equal(state?.tool, 'b');
  });

  it('parks and unparks onto the tool the turn is running when the event names none', () => {
    const { published, state } = run([
      { event: 'turn.tool', fields: { tool: 'sleep' } },
      { event: 'tool.park', fields: {} },
    ]);
    assert.deepEqual(published, [true, true]);
    assert.equal(state?.phase, 'waiting');
    assert.equal(state?.tool, 'sleep');
    const woke = applyProgress(state, { event: 'tool.unpark', fields: {} }, 2000);
    assert.deepEqual([woke.state.phase, woke.state.tool, woke.publish], ['tool', 'sleep', true]);
  });

  it('ignores a malformed round and keeps the old one', () => {
    const { state, published } = run([
      { event: 'turn.think', fields: { round: 4 } },
      { event: 'turn.think', fields: { round: 'five' } },
      { event: 'turn.think', fields: { round: -1 } },
    ]);
    assert.equal(state?.round, 4);
    assert.deepEqual(published, [true, false, false]);
  });

  it('does not modify the state it was given', () => {
    const before = startActivity(unit, 1);
    const snapshot = structuredClone(before);
    applyProgress(before, { event: 'turn.tool', fields: { tool: 'x' } }, 2);
    assert.deepEqual(before, snapshot);
  });
});
