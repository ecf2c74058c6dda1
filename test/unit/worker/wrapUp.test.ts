import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextStep } from '../../../src/worker/nextStep.js';
import type { WrapUpAnswer, WrapUpState, WrapUpView } from '../../../src/worker/wrapUp.js';
import {
  afterHumanAnswer,
  applyWrapUp,
  CONTINUE_PROMPT,
  checkAnswer,
  checkToolCalls,
  EMPTY_ANSWER_PROMPT,
  ERR_DECLINED,
  ERR_EMPTY,
  ERR_NOBODY,
  ERR_RETRY_FAILED,
  initWrapUp,
  isTruncatedArguments,
  joinedText,
  RETRY_QUESTION,
  THINK_LESS_PROMPT,
} from '../../../src/worker/wrapUp.js';

const BASE = 4096;

function view(over: Partial<WrapUpView> = {}, state: Partial<WrapUpState> = {}): WrapUpView {
  return {
    state: { ...initWrapUp(BASE), ...state },
    baseCap: BASE,
    workDone: false,
    structured: false,
    ...over,
  };
}

const attempts = (a: Partial<WrapUpState['attempts']>): WrapUpState['attempts'] => ({
  length: 0,
  reasoning: 0,
  empty: 0,
  truncated_args: 0,
  ...a,
});

const cutOff: WrapUpAnswer = { text: 'The first half of', toolCalls: [], stopReason: 'max_tokens' };
const thoughtOnly: WrapUpAnswer = { toolCalls: [], stopReason: 'max_tokens', hasReasoning: true };
const empty: WrapUpAnswer = { toolCalls: [], stopReason: 'end_turn' };
const rawCall = { id: 'call_1', name: 'fs.write', arguments: { _raw: '{"path": "/a", "body": "lo' } };
const goodCall = { id: 'call_2', name: 'fs.read', arguments: { path: '/a' } };

describe('isTruncatedArguments', () => {
  it('is true only for the wire marker {_raw: string}', () => {
    assert.equal(isTruncatedArguments({ _raw: '{"a' }), true);
    assert.equal(isTruncatedArguments({ _raw: 1 }), false);
    assert.equal(isTruncatedArguments({ _raw: 'x', other: 1 }), false);
    assert.equal(isTruncatedArguments({ path: '/a' }), false);
    assert.equal(isTruncatedArguments(null), false);
    assert.equal(isTruncatedArguments(['_raw']), false);
  });
});

describe('checkToolCalls (d: truncated arguments)', () => {
  const truncated: WrapUpAnswer = { toolCalls: [goodCall, rawCall], stopReason: 'max_tokens' };
  it('doubles the cap per re-send up to 4× the base, then fails', () => {
    assert.deepEqual(checkToolCalls(truncated, view()), {
      kind: 'resend',
      check: 'truncated_args',
      attempt: 1,
      maxTokens: 8192,
    });
    const second = view({}, { cap: 8192, attempts: attempts({ truncated_args: 1 }) });
    assert.deepEqual(checkToolCalls(truncated, second), {
      kind: 'resend',
      check: 'truncated_args',
      attempt: 2,
      maxTokens: 16384,
    });
    const third = checkToolCalls(truncated, view({}, { cap: 16384, attempts: attempts({ truncated_args: 2 }) }));
    assert.equal(third?.kind, 'fail');
    assert.equal(third?.kind === 'fail' && third.attempt, 3);
    assert.match(third?.kind === 'fail' ? third.error : '', /^wrap-up: .*cut off.*16384 tokens; the call was not run$/);
  });
  it('parsable calls act even when the stop reason is the length limit', () => {
    assert.equal(checkToolCalls({ toolCalls: [goodCall], stopReason: 'max_tokens' }, view()), null);
  });
  it('unparsable arguments without a cut-off are the tool’s problem, not a re-send', () => {
    assert.equal(checkToolCalls({ toolCalls: [rawCall], stopReason: 'tool_use' }, view()), null);
  });
});

describe('checkAnswer (a: cut off by the length limit)', () => {
  it('continues three times, then the answer stands with a note', () => {
    for (let done = 0; done < 3; done++) {
      assert.deepEqual(checkAnswer(cutOff, view({}, { attempts: attempts({ length: done }) })), {
        kind: 'continue',
        check: 'length',
        attempt: done + 1,
        partial: 'The first half of',
        prompt: CONTINUE_PROMPT,
      });
    }
    const fourth = checkAnswer(cutOff, view({}, { attempts: attempts({ length: 3 }) }));
    assert.equal(fourth?.kind, 'give_up');
    assert.equal(
      fourth?.kind === 'give_up' && fourth.note,
      'the answer was cut off by the length limit 4 times; it may be incomplete',
    );
  });
  it('a structured answer past the limit goes to its own parse / re-ask path', () => {
    assert.equal(checkAnswer(cutOff, view({ structured: true }, { attempts: attempts({ length: 3 }) })), null);
    assert.equal(checkAnswer(cutOff, view({ structured: true }))?.kind, 'continue');
  });
  it('a normal stop with text is the answer', () => {
    assert.equal(checkAnswer({ text: 'done', toolCalls: [], stopReason: 'end_turn' }, view({ workDone: true })), null);
  });
});

describe('checkAnswer (b: all output went to reasoning)', () => {
  it('reminds twice, then asks a person, then fails after the extra try', () => {
    const steps = [0, 1, 2, 4].map((done) =>
      checkAnswer(thoughtOnly, view({}, { attempts: attempts({ reasoning: done }) })),
    );
    assert.deepEqual(steps[0], { kind: 'nudge', check: 'reasoning', attempt: 1, prompt: THINK_LESS_PROMPT });
    assert.deepEqual(steps[1], { kind: 'nudge', check: 'reasoning', attempt: 2, prompt: THINK_LESS_PROMPT });
    assert.deepEqual(steps[2], { kind: 'ask_human', check: 'reasoning', attempt: 3, question: RETRY_QUESTION });
    assert.deepEqual(steps[3], { kind: 'fail', check: 'reasoning', attempt: 5, error: ERR_RETRY_FAILED });
  });
  it('replayable parts alone count as reasoning', () => {
    const parts: WrapUpAnswer = { toolCalls: [], stopReason: 'max_tokens', reasoning: { parts: 'x' } };
    assert.equal(checkAnswer(parts, view())?.kind, 'nudge');
  });
  it('fires only when the length limit was hit: an empty end_turn after thinking is an ordinary empty answer', () => {
    const ended: WrapUpAnswer = { toolCalls: [], stopReason: 'end_turn', hasReasoning: true };
    assert.equal(checkAnswer(ended, view()), null);
  });
  it('does not apply to structured answers, nor when cut-off parts already form an answer', () => {
    assert.equal(checkAnswer(thoughtOnly, view({ structured: true })), null);
    assert.equal(checkAnswer(thoughtOnly, view({}, { parts: ['earlier part'] })), null);
  });
});

describe('checkAnswer (c: empty wrap-up after real work)', () => {
  it('retries once, then fails', () => {
    assert.deepEqual(checkAnswer(empty, view({ workDone: true })), {
      kind: 'nudge',
      check: 'empty',
      attempt: 1,
      prompt: EMPTY_ANSWER_PROMPT,
    });
    const again = view({ workDone: true }, { attempts: attempts({ empty: 1 }) });
    assert.deepEqual(checkAnswer(empty, again), { kind: 'fail', check: 'empty', attempt: 2, error: ERR_EMPTY });
  });
  it('whitespace is empty; an empty answer without work still stands (§11.6); think children are exempt', () => {
    assert.equal(checkAnswer({ ...empty, text: ' \n' }, view({ workDone: true }))?.kind, 'nudge');
    assert.equal(checkAnswer(empty, view()), null);
    assert.equal(checkAnswer(empty, view({ workDone: true, structured: true })), null);
  });
});

describe('afterHumanAnswer', () => {
  it('yes ⇒ one more try; no ⇒ declined; error, silence or timeout ⇒ nobody could be asked', () => {
    const retry = { kind: 'nudge', check: 'reasoning', attempt: 4, prompt: THINK_LESS_PROMPT };
    assert.deepEqual(
      afterHumanAnswer({ result: { reply: 'Yes, retry', timed_out: false }, is_error: false }, 3),
      retry,
    );
    assert.deepEqual(afterHumanAnswer({ result: { reply: true }, is_error: false }, 3), retry);
    const fail = (error: string) => ({ kind: 'fail', check: 'reasoning', attempt: 3, error });
    assert.deepEqual(afterHumanAnswer({ result: { reply: 'no thanks' }, is_error: false }, 3), fail(ERR_DECLINED));
    assert.deepEqual(
      afterHumanAnswer({ result: 'ask_human: no person is reachable', is_error: true }, 3),
      fail(ERR_NOBODY),
    );
    assert.deepEqual(afterHumanAnswer(null, 3), fail(ERR_NOBODY));
    assert.deepEqual(
      afterHumanAnswer({ result: { reply: null, timed_out: true }, is_error: false }, 3),
      fail(ERR_NOBODY),
    );
  });
  it('the reason names the missing person', () => {
    assert.equal(
      ERR_NOBODY,
      'wrap-up: the model produced no answer (all output went to reasoning) and no person could be asked to retry',
    );
  });
});

describe('applyWrapUp', () => {
  it('counts the check, keeps the part, raises the cap', () => {
    let state = initWrapUp(BASE);
    state = applyWrapUp(state, { kind: 'continue', check: 'length', attempt: 1, partial: 'ab', prompt: '' });
    state = applyWrapUp(state, { kind: 'resend', check: 'truncated_args', attempt: 1, maxTokens: 8192 });
    assert.deepEqual(state, { attempts: attempts({ length: 1, truncated_args: 1 }), parts: ['ab'], cap: 8192 });
    assert.equal(joinedText(state, 'cd'), 'abcd');
  });
});

describe('nextStep with wrap-up checks', () => {
  const turn = { structured: false, reasks: 0, baseCap: BASE };
  it('a cut-off answer becomes a wrap-up action', () => {
    const step = nextStep(cutOff, turn);
    assert.equal(step.kind === 'wrapup' && step.action.kind, 'continue');
  });
  it('the completing answer carries the joined parts', () => {
    const wrap = { ...initWrapUp(BASE), parts: ['one ', 'two '], attempts: attempts({ length: 2 }) };
    assert.deepEqual(nextStep({ text: 'three', toolCalls: [], stopReason: 'end_turn' }, { ...turn, wrap }), {
      kind: 'answer',
      text: 'one two three',
    });
    const act = nextStep({ toolCalls: [goodCall], stopReason: 'tool_use' }, { ...turn, wrap });
    assert.deepEqual(act, { kind: 'act', calls: [goodCall], text: 'one two ' });
  });
  it('giving up answers with a note; a failed check stops the turn failed', () => {
    const wrap = { ...initWrapUp(BASE), parts: ['a', 'b', 'c'], attempts: attempts({ length: 3 }) };
    const gaveUp = nextStep({ ...cutOff, text: 'd' }, { ...turn, wrap });
    assert.equal(gaveUp.kind === 'answer' && gaveUp.text, 'abcd');
    assert.equal(gaveUp.kind === 'answer' && gaveUp.wrapup?.action, 'give_up');
    const wrapEmpty = { ...initWrapUp(BASE), attempts: attempts({ empty: 1 }) };
    const stop = nextStep(empty, { ...turn, wrap: wrapEmpty, workDone: true });
    assert.deepEqual(stop, {
      kind: 'stop',
      status: 'failed',
      error: ERR_EMPTY,
      wrapup: { check: 'empty', attempt: 2, action: 'fail' },
    });
  });
  it('truncated arguments re-send instead of acting', () => {
    const step = nextStep({ toolCalls: [rawCall], stopReason: 'max_tokens' }, turn);
    assert.deepEqual(step, {
      kind: 'wrapup',
      action: { kind: 'resend', check: 'truncated_args', attempt: 1, maxTokens: 8192 },
    });
  });
});
