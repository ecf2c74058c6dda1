import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkDownFrame, checkUpFrame } from '../../../src/protocol/frameCheck.js';

describe('checkUpFrame', () => {
  it('takes a pong with or without the long call the worker is inside', () => {
    assert.deepEqual(checkUpFrame({ type: 'pong', seq: 4 }), { type: 'pong', seq: 4 });
    assert.deepEqual(checkUpFrame({ type: 'pong', seq: 4, busy: 'model' }), { type: 'pong', seq: 4, busy: 'model' });
    for (const busy of ['tool', 'budget_wait', 'startup'])
      assert.equal(typeof checkUpFrame({ type: 'pong', seq: 1, busy }), 'object');
  });

  it('refuses a pong without a seq or with an unknown busy kind, naming the frame type', () => {
    assert.equal(checkUpFrame({ type: 'pong' }), 'a malformed "pong" frame');
    assert.equal(checkUpFrame({ type: 'pong', seq: 1, busy: 'napping' }), 'a malformed "pong" frame');
    assert.equal(checkUpFrame({ type: 'pong', seq: 1, busy: 7 }), 'a malformed "pong" frame');
  });
});

describe('checkUpFrame on usage', () => {
  const usage = { type: 'usage', input_tokens: 20, output_tokens: 7 };
  const done = (u: Record<string, unknown>) => ({
    type: 'turn_done',
    turn: { status: 'completed', messages: [], usage: u, rounds: 1, tool_calls: 0 },
  });
  it('takes the cache counts when they are non-negative numbers, and their absence', () => {
    assert.equal(typeof checkUpFrame(usage), 'object');
    assert.equal(typeof checkUpFrame({ ...usage, cache_read_tokens: 5000, cache_write_tokens: 0 }), 'object');
    assert.equal(typeof checkUpFrame(done({ input_tokens: 1, output_tokens: 1, cache_read_tokens: 3 })), 'object');
  });
  it('refuses a cache count that is negative, not a number or not finite, on a usage frame or a turn result', () => {
    for (const bad of [-1, '5000', null, Number.POSITIVE_INFINITY]) {
      assert.equal(checkUpFrame({ ...usage, cache_read_tokens: bad }), 'a malformed "usage" frame', String(bad));
      assert.equal(checkUpFrame({ ...usage, cache_write_tokens: bad }), 'a malformed "usage" frame', String(bad));
      const turn = done({ input_tokens: 1, output_tokens: 1, cache_write_tokens: bad });
      assert.equal(checkUpFrame(turn), 'a malformed "turn_done" frame', String(bad));
    }
  });
});

describe('checkDownFrame', () => {
  it('takes the frames a worker reads after its spawn frame', () => {
    assert.equal(typeof checkDownFrame({ type: 'ping', seq: 1 }), 'object');
    assert.equal(typeof checkDownFrame({ type: 'cancel', reason: 'operator' }), 'object');
    assert.equal(typeof checkDownFrame({ type: 'tool_result', id: 2, result: 'x', is_error: false }), 'object');
    assert.equal(typeof checkDownFrame({ type: 'budget_grant', id: 3, ok: true, wait_ms: 0 }), 'object');
  });

  it('refuses an unknown type, a reply without a numeric id, and a ping without a seq', () => {
    assert.equal(checkDownFrame({ type: 'reboot' }), 'a frame of unknown type "reboot"');
    assert.equal(checkDownFrame({ type: 'tool_result', id: '2', is_error: false }), 'a malformed "tool_result" frame');
    assert.equal(checkDownFrame({ type: 'ping' }), 'a malformed "ping" frame');
    assert.equal(checkDownFrame([]), 'a frame without a type');
  });
});
