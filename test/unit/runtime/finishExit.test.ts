import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import type { TurnResult } from '../../../src/protocol/frames.js';
import { classifyExitAsk } from '../../../src/runtime/finishExit.js';

const event = (principal: string | null): InboxEvent => ({
  id: 'e1',
  kind: 'a2a_message',
  ts: 1,
  principal,
  payload: { context_id: 'c', text: 'x' },
});
const result = (finish?: TurnResult['finish']): TurnResult => ({
  status: 'completed',
  messages: [],
  usage: { input_tokens: 0, output_tokens: 0 },
  rounds: 1,
  tool_calls: 1,
  ...(finish ? { finish } : {}),
});
const outcome = { status: 'completed' as const, reply: '' };

describe('classifyExitAsk', () => {
  it('asks to exit only for a finish with exit: true, with its status (default completed)', () => {
    assert.deepEqual(classifyExitAsk({ event: event(null), outcome, result: result() }), { exit: false });
    const noExit = result({ status: 'failed' });
    assert.deepEqual(classifyExitAsk({ event: event(null), outcome, result: noExit }), { exit: false });
    const plain = result({ exit: true });
    assert.deepEqual(classifyExitAsk({ event: event(null), outcome, result: plain }), {
      exit: true,
      status: 'completed',
    });
    const refused = result({ status: 'refused', exit: true });
    assert.deepEqual(classifyExitAsk({ event: event('operator'), outcome, result: refused }), {
      exit: true,
      status: 'refused',
    });
  });

  it("refuses the exit of a user's or an agent's turn", () => {
    const ask = classifyExitAsk({ event: event('user:alice'), outcome, result: result({ exit: true }) });
    assert.equal(ask.exit, 'refused');
    assert.deepEqual(classifyExitAsk({ event: event('operator'), outcome }), { exit: false }, 'no result, no ask');
  });
});
