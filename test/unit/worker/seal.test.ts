import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sealCalls, sealText, unansweredCalls } from '../../../src/worker/seal.js';

describe('sealCalls', () => {
  it('gives every unexecuted call an error result naming the status', () => {
    const calls = [
      { id: 'c2', name: 'memory.set', arguments: {} },
      { id: 'c3', name: 'plan.get', arguments: {} },
    ];
    const sealed = sealCalls(calls, 'cancelled', 7);
    assert.deepEqual(
      sealed.map((m) => m.role === 'tool' && [m.id, m.is_error, m.content]),
      [
        ['c2', true, 'memory.set: not executed — the turn ended (cancelled) before this call ran'],
        ['c3', true, 'plan.get: not executed — the turn ended (cancelled) before this call ran'],
      ],
    );
    assert.equal(
      sealText('x', 'loop_detected'),
      'x: not executed — the turn ended (loop_detected) before this call ran',
    );
  });
  it('unansweredCalls finds a call id without a result', () => {
    const calls = [
      { id: 'a', name: 't', arguments: {} },
      { id: 'b', name: 't', arguments: {} },
    ];
    const open = unansweredCalls([
      { role: 'assistant', tool_calls: calls, ts: 1 },
      { role: 'tool', id: 'a', name: 't', content: 1, is_error: false, ts: 1 },
    ]);
    assert.deepEqual(open, ['b']);
  });
});
