// planMessageWrite: when a checkpoint appends and when it rewrites a transcript.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planMessageWrite } from '../../../src/store/conversationWrite.js';

describe('planMessageWrite', () => {
  it('writes everything for a conversation the store has not seen', () => {
    assert.deepEqual(planMessageWrite(null, 1, 3), { kind: 'append', from: 0 });
  });

  it('appends the new tail while the version holds', () => {
    assert.deepEqual(planMessageWrite({ version: 2, count: 5 }, 2, 8), { kind: 'append', from: 5 });
    assert.deepEqual(planMessageWrite({ version: 2, count: 5 }, 2, 5), { kind: 'append', from: 5 });
  });

  it('rewrites after compaction or when the transcript shrank', () => {
    assert.deepEqual(planMessageWrite({ version: 1, count: 5 }, 2, 9), { kind: 'rewrite' });
    assert.deepEqual(planMessageWrite({ version: 1, count: 5 }, 1, 4), { kind: 'rewrite' });
  });
});
