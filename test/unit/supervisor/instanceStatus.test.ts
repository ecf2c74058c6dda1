// What `status` shows to whom (issue 18 item 13): the operator's snapshot carries the worker pool and the instance
// budget; a user's (its own work only) carries neither, nor the timers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConversationBook } from '../../../src/context/conversationBook.js';
import { instanceStatus, type StatusParts } from '../../../src/supervisor/instanceStatus.js';

function parts(): StatusParts {
  const conversations = {
    size: 3,
    heads: { usage: () => ({ conversations: 1 }), owners: () => [] },
  } as unknown as ConversationBook;
  return {
    name: 'agentd',
    generation: 1,
    jobs: new Map(),
    conversations,
    hold: { paused: false, draining: false, pressure: 'ok' } as StatusParts['hold'],
    subagents: { seenBy: () => [] },
    timers: { list: () => [] },
    workers: () => ({ spare: 1, target: 1, max: 4 }),
    budget: () => ({ windows: [], lifetime_tokens: 10, max_lifetime_tokens: null, on_exhausted: 'fail' }),
  };
}

describe('instanceStatus', () => {
  it("gives the operator the workers and the budget, and a user's status neither", () => {
    const operator = instanceStatus(parts());
    // The premise: the parts do carry workers and budget, and the operator sees them.
    assert.deepEqual(operator.workers, { busy: 0, spare: 1, target: 1, max: 4 });
    assert.equal((operator.budget as { lifetime_tokens: number }).lifetime_tokens, 10);
    const user = instanceStatus(parts(), 'user:alice');
    assert.equal(user.conversations, 1, 'its own conversations only');
    for (const key of ['workers', 'budget', 'timers']) assert.ok(!(key in user), `a user's status has no ${key}`);
  });
});
