// A2A task policy: the starting state, transitions (terminal states never change again, history capped),
// and the turn status → task state table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  answeredQuestion,
  isTerminal,
  newTask,
  startingTask,
  stateForStatus,
  TASK_HISTORY_LIMIT,
  TERMINAL_STATES,
  taskOrigin,
  transition,
} from '../../../src/a2a/tasks.js';
import type { TaskRecord, TaskState } from '../../../src/domain/task.js';
import { TURN_STATUSES } from '../../../src/protocol/status.js';

const init = { id: 'T1', context_id: 'c', conversation: 'a2a-1', principal: 'alice', inbox_event: 'E1', now: 100 };

function task(): TaskRecord {
  return newTask(init);
}

describe('newTask', () => {
  it('starts working, with submitted then working in its history, and nothing else set', () => {
    assert.deepEqual(task(), {
      id: 'T1',
      context_id: 'c',
      conversation: 'a2a-1',
      state: 'working',
      principal: 'alice',
      inbox_event: 'E1',
      message: null,
      result: null,
      question: null,
      history: [
        { state: 'submitted', ts: 100 },
        { state: 'working', ts: 100 },
      ],
      created: 100,
      updated: 100,
    });
  });
});

describe('startingTask', () => {
  it('builds the task an accepted event names, working since the accept; none for an event without one', () => {
    const payload = { context_id: 'user:bob/c', text: 'hi', task: { id: 'T1', context_id: 'c' } };
    const event = { id: 'E1', kind: 'a2a_message' as const, ts: 500, principal: 'user:bob', payload };
    const task = startingTask(event);
    assert.equal(task?.id, 'T1');
    assert.equal(task?.conversation, 'user:bob/c');
    assert.equal(task?.context_id, 'c');
    assert.equal(task?.inbox_event, 'E1');
    assert.equal(task?.state, 'working');
    assert.equal(task?.created, 500);
    assert.equal(startingTask({ ...event, payload: { context_id: 'c', text: 'hi' } }), null);
  });
});

describe('transition', () => {
  it('returns an updated copy and leaves the input alone', () => {
    const before = task();
    const snapshot = structuredClone(before);
    const after = transition(before, 'completed', 200, { message: 'hi', result: 'hi' });
    assert.deepEqual(before, snapshot);
    assert.equal(after?.state, 'completed');
    assert.equal(after?.updated, 200);
    assert.equal(after?.created, 100);
    assert.equal(after?.message, 'hi');
    assert.equal(after?.result, 'hi');
    assert.deepEqual(after?.history.at(-1), { state: 'completed', ts: 200 });
  });

  it('never changes a terminal task again: every terminal state, every target', () => {
    const targets: TaskState[] = ['working', 'input_required', 'completed', 'failed', 'canceled', 'rejected'];
    for (const terminal of TERMINAL_STATES) {
      const ended = transition(task(), terminal, 150);
      assert.ok(ended, `premise: working → ${terminal} is allowed`);
      for (const target of targets) assert.equal(transition(ended, target, 200, { message: 'late' }), null);
    }
  });

  it('keeps fields the patch leaves out, clears those it sets to null', () => {
    const withMessage = transition(task(), 'working', 110, { message: 'm', result: 'r' });
    assert.ok(withMessage);
    const kept = transition(withMessage, 'completed', 120);
    assert.equal(kept?.message, 'm');
    assert.equal(kept?.result, 'r');
    const cleared = transition(withMessage, 'failed', 120, { message: null, result: null });
    assert.equal(cleared?.message, null);
    assert.equal(cleared?.result, null);
  });

  it('sets a question on input_required and drops it on leaving unless the patch sets one', () => {
    const question = { id: 'q1', text: 'Which?', schema: { type: 'string' } };
    const asking = transition(task(), 'input_required', 110, { message: 'Which?', question });
    assert.deepEqual(asking?.question, question);
    assert.ok(asking);
    assert.deepEqual(transition(asking, 'input_required', 115)?.question, question);
    assert.equal(transition(asking, 'working', 120)?.question, null);
    assert.equal(transition(asking, 'working', 120, { question: null })?.question, null);
  });

  it('records no history entry for a move to the same state, but still updates', () => {
    const same = transition(task(), 'working', 130, { message: 'still going' });
    assert.equal(same?.history.length, 2);
    assert.equal(same?.updated, 130);
    assert.equal(same?.message, 'still going');
  });

  it('keeps at most 64 history entries, dropping the oldest', () => {
    let current: TaskRecord = task();
    for (let i = 0; i < 100; i++) {
      const next = transition(current, i % 2 === 0 ? 'input_required' : 'working', 1000 + i);
      assert.ok(next);
      current = next;
    }
    assert.equal(current.history.length, TASK_HISTORY_LIMIT);
    assert.deepEqual(current.history.at(-1), { state: 'working', ts: 1099 });
    assert.deepEqual(current.history[0], { state: 'input_required', ts: 1036 });
  });
});

describe('stateForStatus', () => {
  it('maps completed, refused and cancelled; every other status fails the task', () => {
    const mapped = Object.fromEntries(TURN_STATUSES.map((s) => [s, stateForStatus(s)]));
    assert.deepEqual(mapped, {
      completed: 'completed',
      failed: 'failed',
      cancelled: 'canceled',
      refused: 'rejected',
      exhausted_steps: 'failed',
      exhausted_tokens: 'failed',
      deadline: 'failed',
      loop_detected: 'failed',
    });
    for (const s of TURN_STATUSES) assert.equal(isTerminal(stateForStatus(s)), true);
  });
});

describe('isTerminal', () => {
  it('is true for exactly completed, failed, canceled and rejected', () => {
    const all: TaskState[] = ['submitted', 'working', 'input_required', 'completed', 'failed', 'canceled', 'rejected'];
    assert.deepEqual(all.filter(isTerminal), ['completed', 'failed', 'canceled', 'rejected']);
  });
});

describe('taskOrigin', () => {
  it("tells a turn's task, an a2a start's run, a human step's question and a task nothing answers apart", () => {
    assert.equal(taskOrigin(task()), 'turn');
    assert.equal(taskOrigin({ ...task(), inbox_event: null, run: 'r1' }), 'run');
    assert.equal(taskOrigin({ ...task(), inbox_event: 'workflow:k#1', run: 'r1' }), 'step');
    assert.equal(taskOrigin({ ...task(), inbox_event: null }), 'none');
  });
});

describe('answeredQuestion', () => {
  const asked = (extra: Partial<TaskRecord> = {}): TaskRecord => ({
    ...task(),
    state: 'input_required',
    question: { id: 'Q1', text: 'Ship it?' },
    ...extra,
  });

  it("closes a turn's question a live ask takes, and keeps the answer when nobody waits", () => {
    assert.equal(answeredQuestion(asked(), 'yes', true), null);
    assert.deepEqual(answeredQuestion(asked(), 'yes', false), { id: 'Q1', text: 'Ship it?', answer: 'yes' });
  });

  it("keeps a run step's answer even while its ask waits: a crash before the step ends hands it over", () => {
    const step = asked({ run: 'w-1', inbox_event: 'workflow:k#1' });
    assert.deepEqual(answeredQuestion(step, 'yes', true), { id: 'Q1', text: 'Ship it?', answer: 'yes' });
  });

  it('has nothing to keep without a question', () => {
    assert.equal(answeredQuestion(asked({ question: null }), 'yes', false), null);
  });
});
