// The terminal UI's pure view (issue 18 item 3): a conversation opened with its stored messages, without showing
// twice a message the live feed already brought.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  afterReload,
  applyFeed,
  budgetLine,
  goalLine,
  heldView,
  initialState,
  planLine,
  runningTask,
  type TuiState,
  ViewRequests,
  visibleRows,
  withHistory,
  workingLine,
} from '../../../src/client/tuiState.js';

const stored = [
  { role: 'user', text: 'hi', seq: 0, task: 't1' },
  { role: 'agent', text: 'hello', seq: 1, task: 't1' },
  { role: 'user', text: 'again', seq: 2, task: 't2' },
  { role: 'agent', text: 'ok', seq: 3, task: 't2' },
];

describe('withHistory', () => {
  it('places the stored messages before the live rows of that conversation', () => {
    let state = initialState('c1');
    state = applyFeed(state, {
      seq: 9,
      ts: 0,
      kind: 'message',
      data: { role: 'user', text: 'live', task: 't3', context_id: 'c1' },
    });
    state = withHistory(state, 'c1', stored);
    assert.deepEqual(
      visibleRows(state).map((r) => `${r.kind}:${r.text}`),
      ['user:hi', 'agent:hello', 'user:again', 'agent:ok', 'user:live'],
    );
  });

  it('drops the stored messages the feed already showed (by task), and adds nothing when opened again', () => {
    let state = initialState('c1');
    // The feed brought the last exchange before the stored messages were read.
    for (const [seq, m] of stored.slice(2).entries()) {
      state = applyFeed(state, { seq, ts: 0, kind: 'message', data: { ...m, context_id: 'c1' } });
    }
    state = withHistory(state, 'c1', stored);
    const texts = visibleRows(state).map((r) => r.text);
    assert.deepEqual(texts, ['hi', 'hello', 'again', 'ok'], 'each message once');
    assert.equal(withHistory(state, 'c1', stored).rows.length, state.rows.length, 'opened again: no new row');
  });

  it('keeps an older stored message that says what a live one says', () => {
    // A live "yes" (task t9) and an older stored "yes" (task t1): two messages. Matching by role and text, the old
    // merge took the stored one for the live row and dropped it.
    let state = initialState('c1');
    state = applyFeed(state, {
      seq: 1,
      ts: 0,
      kind: 'message',
      data: { role: 'user', text: 'yes', task: 't9', context_id: 'c1' },
    });
    state = withHistory(state, 'c1', [
      { role: 'user', text: 'yes', seq: 0, task: 't1' },
      { role: 'agent', text: 'noted', seq: 1, task: 't1' },
      // A message no task names (another producer's) is keyed by its place, so it is kept too.
      { role: 'agent', text: 'yes', seq: 2 },
    ]);
    assert.deepEqual(
      visibleRows(state).map((r) => `${r.kind}:${r.text}`),
      ['user:yes', 'agent:noted', 'agent:yes', 'user:yes'],
    );
  });
});

describe('ViewRequests', () => {
  it('marks an answer stale once the user changed the view after asking', () => {
    const views = new ViewRequests();
    const latest = views.next(); // the TUI asks for `latest` at attach
    assert.equal(views.current(latest), true, 'premise: with no later choice the answer applies');
    const chosen = views.next(); // then the user types /conversation other
    assert.equal(views.current(latest), false, "the late `latest` answer must not take the user's view back");
    assert.equal(views.current(chosen), true);
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

describe('applyFeed on goals and feed reloads', () => {
  const msg = (seq: number, data: Record<string, unknown>) => ({ seq, ts: 0, kind: 'message' as const, data });

  it("shows the view's goal, and a goal event never touches the pause flag", () => {
    let s: TuiState = { ...initialState('x'), paused: true };
    const goal = { objective: 'ship it', status: 'active' };
    s = applyFeed(s, { seq: 1, ts: 0, kind: 'state', data: { op: 'goal', context_id: 'x', goal } });
    assert.equal(goalLine(s, 'x'), 'goal: ship it (active)');
    assert.equal(goalLine(s, 'y'), null);
    assert.equal(s.paused, true);
  });

  it('keeps the loaded history through a feed reload and forgets what was running', () => {
    let s = withHistory(initialState('x'), 'x', stored);
    s = applyFeed(s, { seq: 1, ts: 0, kind: 'task', data: { task: 't3', context_id: 'x', state: 'working' } });
    assert.ok('t3' in s.active, 'premise: a task runs');
    const after = afterReload(s);
    assert.equal(after.rows.length, stored.length);
    assert.deepEqual(after.active, {});
    assert.equal(after.working, null);
  });

  it("keys another principal's rows by their stored conversation and labels them", () => {
    let s: TuiState = { ...initialState(null), self: 'operator' };
    s = applyFeed(
      s,
      msg(1, {
        task: 'a',
        context_id: 'x',
        conversation: 'user:alice/x',
        principal: 'user:alice',
        role: 'user',
        text: 'a',
      }),
    );
    s = applyFeed(
      s,
      msg(2, { task: 'b', context_id: 'x', conversation: 'x', principal: 'operator', role: 'user', text: 'b' }),
    );
    assert.deepEqual(
      visibleRows({ ...s, ctx: 'x' }).map((r) => r.text),
      ['b'],
    );
    assert.deepEqual(
      visibleRows({ ...s, ctx: 'user:alice/x' }).map((r) => [r.text, r.by]),
      [['a', 'user:alice']],
    );
  });
});

describe('plan checklist and the running task, per conversation', () => {
  const feed = (seq: number, kind: string, data: Record<string, unknown>) => ({ seq, ts: 0, kind, data });
  it('each conversation shows its own checklist, never another one', () => {
    let state = initialState('c1');
    state = applyFeed(state, feed(1, 'plan', { task: 't1', context_id: 'c1', op: 'set', progress: '0/3' }));
    state = applyFeed(state, feed(2, 'plan', { task: 't2', context_id: 'c2', op: 'set', progress: '2/2' }));
    assert.equal(planLine(state), 'plan: set 0/3', 'c2 changed last, c1 keeps its own');
    assert.equal(planLine({ ...state, ctx: 'c2' }), 'plan: set 2/2');
    assert.equal(planLine({ ...state, ctx: 'c3' }), null, 'a conversation without a checklist shows none');
    // A turn no task follows names its conversation as ctx.
    state = applyFeed(state, feed(3, 'plan', { ctx: 'c3', op: 'done', progress: '1/1' }));
    assert.equal(planLine({ ...state, ctx: 'c3' }), 'plan: done 1/1');
  });

  it("all conversations in view: the running task's checklist; Esc stops the newest task running in view", () => {
    let state = initialState(null);
    state = applyFeed(state, feed(1, 'task', { task: 't1', context_id: 'c1', state: 'working' }));
    state = applyFeed(state, feed(2, 'task', { task: 't2', context_id: 'c2', state: 'working' }));
    state = applyFeed(state, feed(3, 'plan', { task: 't1', context_id: 'c1', op: 'set', progress: '1/2' }));
    assert.equal(state.working?.task, 't1');
    assert.equal(planLine(state), 'plan: set 1/2');
    assert.equal(runningTask(state), 't2');
    assert.equal(runningTask({ ...state, ctx: 'c1' }), 't1');
    assert.equal(runningTask({ ...state, ctx: 'c9' }), null);
  });

  it('a task asking a person is waiting for the answer, not working', () => {
    let state = initialState(null);
    state = applyFeed(state, feed(1, 'task', { task: 't1', context_id: 'c1', state: 'working' }));
    state = applyFeed(state, feed(2, 'task', { task: 't1', context_id: 'c1', state: 'input_required' }));
    const question = { id: 'q', text: 'Ship?', schema: { type: 'boolean' } };
    state = applyFeed(state, feed(3, 'question', { task: 't1', context_id: 'c1', question }));
    assert.equal(state.working, null);
    assert.equal(workingLine(state, 0), 'waiting for your choice');
  });

  it('a refused answer shows why, and the question asked again stays open (agentd/question.rejected)', () => {
    let state = initialState(null);
    const first = { id: 'q1', text: 'How many?', schema: { type: 'integer' } };
    state = applyFeed(state, feed(1, 'task', { task: 't1', context_id: 'c1', state: 'input_required' }));
    state = applyFeed(state, feed(2, 'question', { task: 't1', context_id: 'c1', question: first }));
    const again = { ...first, id: 'q2', text: 'How many? (previous answer rejected: must be integer)' };
    const asked = feed(4, 'question', {
      task: 't1',
      context_id: 'c1',
      question: { ...again, rejected: 'must be integer' },
    });
    state = applyFeed(state, feed(3, 'task', { task: 't1', context_id: 'c1', state: 'input_required' }));
    state = applyFeed(state, asked);
    state = applyFeed(state, asked);
    const rows = state.rows.map((r) => `${r.kind}: ${r.text}`);
    assert.deepEqual(rows, [
      'question: How many?',
      'error: answer rejected: must be integer',
      'question: How many? (previous answer rejected: must be integer)',
    ]);
    assert.equal(state.question?.text, again.text, 'the question is open again');
    assert.equal(workingLine(state, 0), 'waiting for your answer');
  });
});

describe('heldView (interfaces §5 case 7)', () => {
  const message = (seq: number, ctx: string) => ({
    seq,
    ts: 0,
    kind: 'message',
    data: { role: 'agent', text: `reply ${seq}`, task: `t${seq}`, context_id: ctx },
  });

  it('keeps a scrolled-back view where it was as rows arrive in view; following, it follows', () => {
    const base = withHistory(initialState('c1'), 'c1', stored);
    const back = { ...base, scroll: 2 };
    assert.equal(heldView(back, applyFeed(back, message(10, 'c1'))).scroll, 3, 'one row arrived in view');
    assert.equal(heldView(back, applyFeed(back, message(11, 'c2'))).scroll, 2, 'another view’s row moves nothing');
    assert.equal(heldView(base, applyFeed(base, message(12, 'c1'))).scroll, 0, 'following stays following');
  });

  it('holds the view at the row cap too, where the oldest row goes as one arrives', () => {
    let full = initialState('c1');
    for (let seq = 1; seq <= 1_000; seq += 1) full = applyFeed(full, message(seq, 'c1'));
    assert.equal(full.rows.length, 1_000, 'premise: the cap is reached');
    const back = { ...full, scroll: 20 };
    const next = applyFeed(back, message(1_001, 'c1'));
    assert.equal(next.rows.length, 1_000, 'premise: the oldest row went');
    assert.equal(heldView(back, next).scroll, 21, 'the view stays on the same rows');
  });
});
