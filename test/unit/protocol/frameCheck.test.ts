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
