// The transcript slice (reference §8.3): summary, plan, then the messages verbatim.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newConversation } from '../../../src/context/conversation.js';
import { renderPlan, renderSummary } from '../../../src/context/render.js';
import { sliceConversation } from '../../../src/context/slice.js';
import type { Msg } from '../../../src/protocol/messages.js';
import { item, plan, summary } from './fixtures.js';

const messages: Msg[] = [
  { role: 'user', text: 'hi', ts: 10 },
  { role: 'assistant', text: 'hello', tool_calls: [], ts: 11 },
];

describe('sliceConversation', () => {
  it('puts the summary, then the plan, then the messages', () => {
    const conv = newConversation('c', 'conversation', null, 0);
    conv.messages.push(...messages);
    conv.summary = summary({ goals: ['g'] });
    conv.plan = plan('goal', [item(1, 'a')]);
    const slice = sliceConversation(conv);
    assert.deepEqual(slice, [
      { role: 'system', text: renderSummary(conv.summary), ts: conv.summary.updated },
      { role: 'system', text: renderPlan(conv.plan), ts: conv.plan.updated },
      ...messages,
    ]);
  });

  it('leaves out an empty summary and a missing plan', () => {
    const conv = newConversation('c', 'conversation', null, 0);
    conv.messages.push(...messages);
    conv.summary = summary();
    assert.deepEqual(sliceConversation(conv), messages);
  });

  it('keeps the messages verbatim and does not alias the transcript array', () => {
    const conv = newConversation('c', 'conversation', null, 0);
    conv.messages.push(...messages);
    const slice = sliceConversation(conv);
    assert.notEqual(slice, conv.messages);
    assert.equal(slice[0], messages[0]);
  });
});
