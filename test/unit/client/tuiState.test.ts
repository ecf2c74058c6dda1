// The terminal UI's pure view (issue 18 item 3): a conversation opened with its stored messages, without showing
// twice a message the live feed already brought.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyFeed, budgetLine, initialState, visibleRows, withHistory } from '../../../src/client/tuiState.js';

const stored = [
  { role: 'user', text: 'hi' },
  { role: 'agent', text: 'hello' },
  { role: 'user', text: 'again' },
  { role: 'agent', text: 'ok' },
];

describe('withHistory', () => {
  it('places the stored messages before the live rows of that conversation', () => {
    let state = initialState('c1');
    state = applyFeed(state, {
      seq: 9,
      ts: 0,
      kind: 'message',
      data: { role: 'user', text: 'live', context_id: 'c1' },
    });
    state = withHistory(state, 'c1', stored);
    assert.deepEqual(
      visibleRows(state).map((r) => `${r.kind}:${r.text}`),
      ['user:hi', 'agent:hello', 'user:again', 'agent:ok', 'user:live'],
    );
  });

  it('drops the newest stored messages the feed already showed, and adds nothing when opened again', () => {
    let state = initialState('c1');
    // The feed brought the last exchange before the stored messages were read.
    for (const [seq, m] of stored.slice(2).entries()) {
      state = applyFeed(state, { seq, ts: 0, kind: 'message', data: { ...m, task: 't', context_id: 'c1' } });
    }
    state = withHistory(state, 'c1', stored);
    const texts = visibleRows(state).map((r) => r.text);
    assert.deepEqual(texts, ['hi', 'hello', 'again', 'ok'], 'each message once');
    // The premise: a message repeated earlier in the history is kept (only the overlap at the end goes).
    const repeated = withHistory(initialState('c2'), 'c2', [...stored, { role: 'user', text: 'hi' }]);
    assert.equal(visibleRows(repeated).filter((r) => r.text === 'hi').length, 2);
    assert.equal(withHistory(state, 'c1', stored).rows.length, state.rows.length, 'opened again: no new row');
  });
});

describe('applyFeed on instance state', () => {
  const state = (seq: number, data: Record<string, unknown>) => ({ seq, ts: 0, kind: 'state' as const, data });

  it('shows pause and a spent budget in the header, and clears them when they pass', () => {
    let s = initialState(null);
    s = applyFeed(s, state(1, { op: 'budget', paused: false, draining: false, budget: 'ok' }));
    assert.equal(budgetLine(s), null);
    s = applyFeed(s, state(2, { op: 'pause', paused: true, draining: false, budget: 'ok' }));
    assert.equal(s.paused, true);
    s = applyFeed(s, state(3, { op: 'budget', paused: true, draining: false, budget: 'waiting' }));
    assert.equal(budgetLine(s), 'budget waiting');
    assert.equal(s.paused, true);
    s = applyFeed(s, state(4, { op: 'resume', paused: false, draining: false, budget: 'ok' }));
    assert.equal(s.paused, false);
    assert.equal(budgetLine(s), null);
  });

  it('keeps the budget it knows when an event without one arrives (a daemon without a budget sends none)', () => {
    let s = applyFeed(initialState(null), state(1, { op: 'budget', paused: false, budget: 'refusing' }));
    s = applyFeed(s, state(2, { op: 'pause', paused: true, draining: false }));
    assert.equal(budgetLine(s), 'budget refusing');
  });
});
