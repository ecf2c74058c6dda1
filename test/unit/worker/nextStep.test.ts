import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GuardView } from '../../../src/worker/nextStep.js';
import { checkGuards, finishText, nextCallStep, nextStep } from '../../../src/worker/nextStep.js';

const base: GuardView = {
  cancelled: false,
  now: 1000,
  deadlineAt: 2000,
  deadlineHit: false,
  rounds: 0,
  maxRounds: 5,
  tokensUsed: 0,
  maxTokens: 0,
};

describe('checkGuards', () => {
  it('runs the round when nothing trips', () => {
    assert.equal(checkGuards(base), null);
  });
  it('checks cancel → deadline → rounds → tokens, in that order', () => {
    const all = { ...base, cancelled: true, now: 3000, rounds: 5, tokensUsed: 10, maxTokens: 10 };
    assert.equal(checkGuards(all), 'cancelled');
    assert.equal(checkGuards({ ...all, cancelled: false }), 'deadline');
    assert.equal(checkGuards({ ...all, cancelled: false, now: 0 }), 'exhausted_steps');
    assert.equal(checkGuards({ ...all, cancelled: false, now: 0, rounds: 0 }), 'exhausted_tokens');
  });
  it('treats a fired deadline timer as the deadline even if the clock lags', () => {
    assert.equal(checkGuards({ ...base, deadlineHit: true }), 'deadline');
  });
  it('max_tokens 0 is unbounded', () => {
    assert.equal(checkGuards({ ...base, tokensUsed: 1e9 }), null);
  });
});

describe('nextStep', () => {
  const call = { id: 'call_1', name: 'memory.set', arguments: {} };
  const plain = { structured: false, reasks: 0 };
  const end = 'end_turn';
  it('acts on tool calls whatever the text says', () => {
    assert.deepEqual(nextStep({ text: 'done', toolCalls: [call], stopReason: end }, plain), {
      kind: 'act',
      calls: [call],
      text: 'done',
    });
    assert.deepEqual(nextStep({ toolCalls: [call], stopReason: 'max_tokens' }, plain), { kind: 'act', calls: [call] });
  });
  it('answers with the text, else the last text, else empty (no work done)', () => {
    assert.deepEqual(nextStep({ text: 'hi', toolCalls: [], stopReason: end }, plain), { kind: 'answer', text: 'hi' });
    assert.deepEqual(nextStep({ toolCalls: [], stopReason: end }, { ...plain, lastText: 'earlier' }), {
      kind: 'answer',
      text: 'earlier',
    });
    assert.deepEqual(nextStep({ toolCalls: [], stopReason: end }, plain), { kind: 'answer', text: '' });
  });
  it('structured: accepts, re-asks, then stops failed', () => {
    const turn = { structured: true, schema: { type: 'object', required: ['a'] }, reasks: 0 };
    assert.deepEqual(nextStep({ text: '{"a":1}', toolCalls: [], stopReason: end }, turn), {
      kind: 'answer',
      text: '{"a":1}',
      value: { a: 1 },
    });
    assert.equal(nextStep({ text: '{}', toolCalls: [], stopReason: end }, turn).kind, 'reask');
    const stop = nextStep({ text: '{}', toolCalls: [], stopReason: end }, { ...turn, reasks: 2 });
    assert.equal(stop.kind === 'stop' && stop.status, 'failed');
  });
});

describe('nextCallStep', () => {
  const call = { id: 'c', name: 'fs.read', arguments: { path: '/same' } };
  it('seals on cancel without counting', () => {
    const counts = new Map<string, number>();
    assert.deepEqual(nextCallStep(call, 'cancelled', counts), { kind: 'seal', status: 'cancelled' });
    assert.deepEqual(nextCallStep(call, 'deadline', counts), { kind: 'seal', status: 'deadline' });
  });
  it('runs three identical calls and stops the fourth', () => {
    let counts = new Map<string, number>();
    const kinds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const step = nextCallStep(call, null, counts);
      kinds.push(step.kind);
      if (step.kind !== 'seal') counts = step.counts;
    }
    assert.deepEqual(kinds, ['run', 'run', 'run', 'loop']);
  });
});

describe('finishText', () => {
  it('prefers the last text, then the output (strings as is, else JSON)', () => {
    assert.equal(finishText('said', { output: 'x' }), 'said');
    assert.equal(finishText(undefined, { output: 'x' }), 'x');
    assert.equal(finishText(undefined, { output: { n: 3 } }), '{"n":3}');
    assert.equal(finishText(undefined, {}), undefined);
  });
});
