// A turn no task follows (a wake note, a timer, a delivery) in the clients' pure view (issue 18): its `turn` events
// open and close a working row, a failure leaves an error row, and /cancel never sees it as a task.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedMessage } from '../../../src/client/feedReader.js';
import {
  applyFeed,
  initialState,
  type TuiState,
  withHistory,
  workingIn,
  workingLine,
} from '../../../src/client/tuiState.js';

let seq = 0;
const event = (kind: string, data: Record<string, unknown>): FeedMessage => ({ seq: ++seq, ts: 0, kind, data });
const fold = (events: FeedMessage[], from: TuiState = initialState(null)): TuiState => events.reduce(applyFeed, from);
const ids = { turn: 'ev1', context_id: 'side', conversation: 'side' };

describe('applyFeed on task-less turns', () => {
  it('shows its activity as the working row, and clears it at its end', () => {
    const running = fold([
      event('turn', { ...ids, state: 'working' }),
      event('activity', { ...ids, phase: 'tool', tool: 'read_file', started_ms: 1_000 }),
    ]);
    assert.equal(workingLine(running, 3_000), 'read_file · 2s');
    assert.deepEqual(running.active, {}, 'not a task: /cancel does not offer it');
    assert.deepEqual(running.turns, { 'turn:ev1': 'side' });
    const ended = fold([event('turn', { ...ids, state: 'completed' })], running);
    assert.equal(ended.working, null);
    assert.deepEqual(ended.turns, {});
    assert.equal(ended.rows.length, 0, 'a completed turn adds no row of its own');
  });

  it('runs from its first activity when the client attached after its start', () => {
    const state = fold([event('activity', { ...ids, phase: 'thinking', started_ms: 0 })]);
    assert.equal(state.working?.task, 'turn:ev1');
  });

  it("keeps a turn's working row when a task that acted after it ends first (the web UI showed nothing)", () => {
    const task = { task: 't1', context_id: 'main', conversation: 'main' };
    const state = fold([
      event('task', { ...task, state: 'working' }),
      event('turn', { ...ids, state: 'working' }),
      event('activity', { ...ids, phase: 'thinking', started_ms: 1_000 }),
      event('activity', { ...task, phase: 'thinking', started_ms: 2_000 }),
    ]);
    assert.equal(state.working?.task, 't1', 'premise: the newest activity is the task');
    const ended = fold([event('task', { ...task, state: 'completed' })], state);
    assert.equal(workingLine(ended, 4_000), 'thinking · 3s', "the turn's own activity is back");
    assert.equal(workingIn(ended, (unit) => unit === 'turn:ev1')?.phase, 'thinking');
    const done = fold([event('turn', { ...ids, state: 'completed' })], ended);
    assert.equal(done.working, null);
    assert.deepEqual(done.progress, {});
  });

  it('gives a view the activity of its own unit even while another is newer', () => {
    const task = { task: 't1', context_id: 'main', conversation: 'main' };
    const state = fold([
      event('activity', { ...ids, phase: 'tool', tool: 'read_file', started_ms: 0 }),
      event('task', { ...task, state: 'working' }),
      event('activity', { ...task, phase: 'thinking', started_ms: 0 }),
    ]);
    assert.equal(workingIn(state, (unit) => unit === 'turn:ev1')?.tool, 'read_file');
    assert.equal(workingIn(state, (unit) => unit === 't1')?.phase, 'thinking');
    assert.equal(
      workingIn(state, () => false),
      null,
    );
  });

  it('leaves an error row when it failed, once', () => {
    const failed = event('turn', { ...ids, state: 'failed', message: 'model said 400' });
    const state = fold([event('turn', { ...ids, state: 'working' }), failed, failed]);
    assert.deepEqual(
      state.rows.map((r) => [r.kind, r.ctx, r.text]),
      [['error', 'side', 'failed: model said 400']],
    );
    assert.equal(state.working, null);
  });

  it('keys its tool cards by the turn', () => {
    const card = event('tool', { ...ids, call_id: 'c1', name: 'read_file', status: 'ok', ms: 3 });
    const state = fold([card, card]);
    assert.deepEqual(
      state.rows.map((r) => r.key),
      ['tool:turn:ev1:c1'],
    );
  });
});

describe('messages keyed by turn', () => {
  it("shows once a message the history names by turn only and the feed by task and turn (a pruned task's)", () => {
    const feed = fold([
      event('message', { task: 't1', turn: 'ev1', context_id: 'c', role: 'user', text: 'hi' }),
      event('message', { task: 't1', turn: 'ev1', context_id: 'c', role: 'agent', text: 'hello' }),
    ]);
    const state = withHistory(feed, 'c', [
      { role: 'user', text: 'hi', seq: 0, turn: 'ev1' },
      { role: 'agent', text: 'hello', seq: 1, turn: 'ev1' },
    ]);
    assert.deepEqual(
      state.rows.map((r) => r.text),
      ['hi', 'hello'],
    );
  });
});
