// The reply to a status message: the asker's own view (reference §6.4).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusText } from '../../../src/obs/statusView.js';

const view = {
  conversations: [
    { id: 'a', principal: 'user:alice' },
    { id: 'b', principal: 'user:bob' },
    { id: 'root', principal: 'operator' },
  ],
  running: ['a', 'b'],
  queued: ['b', 'b', 'a'],
  paused: false,
  draining: false,
};

describe('statusText', () => {
  it('shows the operator everything', () => {
    assert.equal(
      statusText({ ...view, principal: 'operator' }),
      'Status: 2 running turns, 3 queued messages, 3 conversations',
    );
  });

  it('shows anyone else only their own conversations', () => {
    assert.equal(
      statusText({ ...view, principal: 'user:alice', paused: true }),
      'Status: 1 running turns, 1 queued messages, 1 conversations (yours); paused',
    );
  });
});
