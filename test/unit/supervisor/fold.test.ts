import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnResult } from '../../../src/protocol/frames.js';
import { failedResult, planFold, planNotRun } from '../../../src/supervisor/fold.js';

const base: TurnResult = {
  status: 'completed',
  messages: [{ role: 'assistant', text: 'hi', tool_calls: [], ts: 1 }],
  text: 'hi',
  usage: { input_tokens: 1, output_tokens: 1 },
  rounds: 1,
  tool_calls: 0,
};

describe('planFold', () => {
  it('appends the delta and records the reply for a completed turn, with no note', () => {
    const plan = planFold(base, 5);
    assert.deepEqual(plan.append, base.messages);
    assert.deepEqual(plan.outcome, { status: 'completed', reply: 'hi' });
  });

  it('adds a status note when the turn did not complete', () => {
    const plan = planFold({ ...base, status: 'deadline', error: 'past the deadline' }, 5);
    assert.deepEqual(plan.append.at(-1), {
      role: 'note',
      text: 'turn ended with status deadline: past the deadline',
      ts: 5,
    });
    assert.equal(plan.outcome.error, 'past the deadline');
  });

  it('carries the error kind into the outcome, beside the unchanged text', () => {
    const plan = planFold({ ...base, status: 'failed', error: 'intel: HTTP 503', error_kind: 'intel' }, 5);
    assert.equal(plan.outcome.error, 'intel: HTTP 503');
    assert.equal(plan.outcome.error_kind, 'intel');
    assert.equal(planFold(base, 5).outcome.error_kind, undefined);
  });

  it('writes no note for a job that never ran a turn, though its outcome keeps the status and error', () => {
    const dropped = failedResult('goal continuation dropped: the goal was replaced', 'cancelled', 'stale');
    // Premise: the same result folded as a turn that ran leaves a status note.
    assert.equal(planFold(dropped, 5).append.length, 1);
    const plan = planFold(dropped, 5, false);
    assert.deepEqual(plan.append, []);
    assert.equal(plan.outcome.status, 'cancelled');
    assert.equal(plan.outcome.error_kind, 'stale');
  });

  it('notes a finish call and records its status (default completed)', () => {
    const plan = planFold({ ...base, finish: { output: 'x' } }, 5);
    assert.deepEqual(plan.append.at(-1), { role: 'note', text: 'finish called with status completed', ts: 5 });
    assert.equal(plan.outcome.finish_status, 'completed');
  });
});

describe('failedResult', () => {
  it('is an empty delta with the error and status', () => {
    const r = failedResult('worker exited without a result (signal SIGKILL)');
    assert.equal(r.status, 'failed');
    assert.deepEqual(r.messages, []);
    assert.equal(planFold(r, 1).append.length, 1);
  });

  it("names where its error came from: the maker's kind, else the stop its status says, else internal", () => {
    assert.equal(failedResult('gone', 'failed', 'worker').error_kind, 'worker');
    assert.equal(failedResult('stop', 'cancelled').error_kind, 'cancelled');
    assert.equal(failedResult('late', 'deadline').error_kind, 'deadline');
    assert.equal(failedResult('not yours', 'refused').error_kind, 'refused');
    assert.equal(failedResult('could not start').error_kind, 'internal');
  });
});

describe('planNotRun', () => {
  it('notes "turn not run" and takes its status from the admission kind, not the reason text', () => {
    const refused = planNotRun('refused: budget exhausted (instance hour window)', 'refuse', 9);
    assert.deepEqual(refused.append, [
      { role: 'note', text: 'turn not run: refused: budget exhausted (instance hour window)', ts: 9 },
    ]);
    assert.deepEqual(refused.outcome, {
      status: 'refused',
      reply: '',
      error: 'budget: refused: budget exhausted (instance hour window)',
      error_kind: 'budget',
    });
    assert.equal(
      planNotRun('lifetime token budget exhausted (instance)', 'fail', 9).outcome.status,
      'exhausted_tokens',
    );
    // A reason that happens to contain "refus" (a principal's name) does not make a `fail` a refusal.
    const failed = planNotRun('lifetime budget exhausted (principal user:refusenik)', 'fail', 9);
    assert.equal(failed.outcome.status, 'exhausted_tokens');
    assert.equal(planNotRun('budget exhausted (instance hour window)', 'refuse', 9).outcome.status, 'refused');
  });
});
