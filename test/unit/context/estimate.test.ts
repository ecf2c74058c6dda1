// Token estimates and window guesses (reference §16.5).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newConversation } from '../../../src/context/conversation.js';
import {
  estimateConversation,
  estimateMessage,
  estimateText,
  estimateValue,
  guessWindow,
} from '../../../src/context/estimate.js';
import { renderPlan, renderSummary } from '../../../src/context/render.js';
import { item, plan, summary } from './fixtures.js';

describe('estimateText', () => {
  it('is ceil(chars / 4)', () => {
    assert.equal(estimateText(''), 0);
    assert.equal(estimateText('abcd'), 1);
    assert.equal(estimateText('abcde'), 2);
  });

  it('counts Unicode scalars, not UTF-16 units or bytes', () => {
    assert.equal(estimateText('héllo'), 2); // 5 scalars
    assert.equal(estimateText('😀😀😀😀'), 1); // 4 scalars, 8 UTF-16 units
    assert.equal(estimateText('😀😀😀😀x'), 2);
  });
});

describe('estimateValue', () => {
  it('counts a string as its text and null as 1', () => {
    assert.equal(estimateValue('abcdefgh'), 2);
    assert.equal(estimateValue(null), 1);
  });

  it('counts other values by their compact JSON', () => {
    assert.equal(estimateValue({ a: 1 }), estimateText('{"a":1}'));
    assert.equal(estimateValue([1, 2, 3]), estimateText('[1,2,3]'));
  });
});

describe('estimateMessage', () => {
  it('adds 4 to a text body', () => {
    assert.equal(estimateMessage({ role: 'user', text: 'abcdefgh', ts: 0 }), 6);
    assert.equal(estimateMessage({ role: 'system', text: '', ts: 0 }), 4);
    assert.equal(estimateMessage({ role: 'note', text: 'abc', ts: 0 }), 5);
  });

  it('counts an assistant body as text plus each call name and arguments', () => {
    const msg = {
      role: 'assistant' as const,
      text: 'ok',
      tool_calls: [{ id: 'c1', name: 'memory.get', arguments: { key: 'k' } }],
      ts: 0,
    };
    assert.equal(estimateMessage(msg), 1 + estimateText('memory.get') + estimateText('{"key":"k"}') + 4);
  });

  it('counts a tool result by its content value', () => {
    assert.equal(estimateMessage({ role: 'tool', id: 'c', name: 'x', content: 'abcd', is_error: false, ts: 0 }), 5);
    assert.equal(estimateMessage({ role: 'tool', id: 'c', name: 'x', content: { n: 1 }, is_error: false, ts: 0 }), 6);
  });
});

describe('estimateConversation', () => {
  it('sums the messages, the rendered summary and the rendered plan', () => {
    const conv = newConversation('c', 'conversation', null, 0);
    conv.messages.push({ role: 'user', text: 'hello there', ts: 0 });
    conv.summary = summary({ facts: ['sky is blue'] });
    conv.plan = plan('g', [item(1, 'step')]);
    const expected = 3 + 4 + estimateText(renderSummary(conv.summary)) + estimateText(renderPlan(conv.plan));
    assert.equal(estimateConversation(conv), expected);
  });

  it('counts nothing for an empty conversation', () => {
    assert.equal(estimateConversation(newConversation('c', 'conversation', null, 0)), 0);
  });
});

describe('guessWindow', () => {
  const table: [string, number][] = [
    ['claude-sonnet-4', 200_000],
    ['Anthropic/Claude-3-Opus', 200_000],
    ['gemini-2.5-pro', 1_000_000],
    ['gpt-4.1-mini', 1_000_000],
    ['gpt-4o', 128_000],
    ['gpt-5', 128_000],
    ['o3', 128_000],
    ['', 128_000],
  ];
  for (const [model, window] of table) {
    it(`guesses ${window} for ${JSON.stringify(model)}`, () => assert.equal(guessWindow(model), window));
  }
});
