// A person's answer against its question's schema (interfaces reference §1.8): what each kind of answer gives the
// schema, why a mismatch is refused, and the question asked again with the reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerProblem, checkAnswer, reasked } from '../../../src/a2a/answerCheck.js';
import { newTask, transition } from '../../../src/a2a/tasks.js';

const DECISION = { type: 'object', properties: { decision: { enum: ['ship', 'hold', 'rollback'] } } };

describe('checkAnswer', () => {
  it('takes the text as typed, the JSON it holds, and yes/no for a boolean', () => {
    assert.deepEqual(checkAnswer({ type: 'string' }, 'anything'), { ok: true, value: 'anything' });
    assert.deepEqual(checkAnswer({ type: 'integer' }, '42'), { ok: true, value: 42 });
    assert.deepEqual(checkAnswer({ type: 'boolean' }, 'true'), { ok: true, value: true });
    assert.deepEqual(checkAnswer({ type: 'boolean' }, 'No'), { ok: true, value: false });
    assert.deepEqual(checkAnswer({ type: 'array', items: { enum: ['a', 'b'] } }, '["b"]'), { ok: true, value: ['b'] });
  });

  it('a one-property object is answered by the value alone (a choice), or whole', () => {
    assert.deepEqual(checkAnswer(DECISION, 'hold'), { ok: true, value: 'hold' });
    assert.deepEqual(checkAnswer(DECISION, '{"decision":"ship"}'), { ok: true, value: { decision: 'ship' } });
  });

  it('refuses a mismatch, naming why', () => {
    assert.deepEqual(checkAnswer(DECISION, 'maybe later'), {
      ok: false,
      why: 'must be one of "ship", "hold", "rollback"',
    });
    assert.equal(checkAnswer({ type: 'boolean' }, 'perhaps').ok, false);
    assert.equal(checkAnswer({ type: 'integer' }, 'ten').ok, false);
  });

  it('a JSON object or array that fails is refused with its own error, never taken as bare text', () => {
    const reason = { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] };
    assert.deepEqual(checkAnswer(reason, 'a typo'), { ok: true, value: 'a typo' });
    assert.deepEqual(checkAnswer(reason, '{"reson":"typo"}'), {
      ok: false,
      why: "must have required property 'reason'",
    });
    assert.deepEqual(checkAnswer(reason, '{"reason":5}'), { ok: false, why: '/reason must be string' });
    assert.equal(checkAnswer(reason, '["why"]').ok, false);
    const count = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    assert.deepEqual(checkAnswer(count, '{"n":"x"}'), { ok: false, why: '/n must be integer' });
    assert.deepEqual(checkAnswer(count, '7'), { ok: true, value: 7 });
  });

  it('no schema, or one that does not compile, refuses nothing', () => {
    assert.deepEqual(checkAnswer(undefined, 'x'), { ok: true, value: 'x' });
    assert.deepEqual(checkAnswer({ type: 'nope' }, 'x'), { ok: true, value: 'x' });
  });
});

describe('answerProblem and reasked', () => {
  const base = newTask({ id: 't1', context_id: 'c', conversation: 'c', principal: 'p', inbox_event: 'e', now: 1 });
  const question = { id: 'q1', text: 'Ship it?', schema: DECISION };
  const asking = transition(base, 'input_required', 2, { question, message: 'Ship it?' }) ?? base;

  it('a question without a schema takes any answer', () => {
    assert.equal(answerProblem({ id: 'q', text: 'Why?' }, 'because'), null);
    assert.equal(answerProblem(null, 'x'), null);
    assert.equal(answerProblem(question, 'rollback'), null);
    assert.match(answerProblem(question, 'nope') ?? '', /must be one of/);
  });

  it('asks again under a new id, amended with why; a second refusal replaces the first reason', () => {
    const again = reasked(asking, 'must be one of "ship"', 3, () => 'q2');
    assert.equal(again.state, 'input_required');
    assert.deepEqual(again.question, {
      id: 'q2',
      text: 'Ship it? (previous answer rejected: must be one of "ship")',
      schema: DECISION,
      rejected: 'must be one of "ship"',
    });
    assert.equal(again.message, again.question?.text);
    const third = reasked(again, 'too long', 4, () => 'q3');
    assert.equal(third.question?.text, 'Ship it? (previous answer rejected: too long)');
  });
});
