// Conversation state: creation, appending and replay dedupe.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appendMessage, hasUserMessageForEvent, newConversation } from '../../../src/context/conversation.js';

describe('newConversation', () => {
  it('starts at version 1 with no summary, plan, messages or turns', () => {
    const conv = newConversation('c1', 'conversation', 'alice', 100);
    assert.deepEqual(conv, {
      id: 'c1',
      kind: 'conversation',
      version: 1,
      summary: null,
      messages: [],
      plan: null,
      principal: 'alice',
      turns: 0,
      created: 100,
      updated: 100,
    });
  });
});

describe('appendMessage', () => {
  it('pushes the message, touches updated and keeps the version', () => {
    const conv = newConversation('root', 'root', null, 100);
    const returned = appendMessage(conv, { role: 'user', text: 'hi', ts: 150 }, 200);
    assert.equal(returned, conv);
    assert.equal(conv.messages.length, 1);
    assert.equal(conv.updated, 200);
    assert.equal(conv.version, 1);
  });
});

describe('hasUserMessageForEvent', () => {
  it('finds a user message carrying the inbox event id', () => {
    const conv = newConversation('c', 'conversation', null, 1);
    appendMessage(conv, { role: 'user', text: 'hi', event: 'ev1', ts: 1 }, 1);
    assert.equal(hasUserMessageForEvent(conv, 'ev1'), true);
    assert.equal(hasUserMessageForEvent(conv, 'ev2'), false);
  });

  it('ignores non-user messages', () => {
    const conv = newConversation('c', 'conversation', null, 1);
    appendMessage(conv, { role: 'note', text: 'ev1', ts: 1 }, 1);
    assert.equal(hasUserMessageForEvent(conv, 'ev1'), false);
  });
});
