import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboxEvent, InboxOutcome } from '../../../src/domain/inbox.js';
import type { TurnResult } from '../../../src/protocol/frames.js';
import { classifyExitAsk } from '../../../src/runtime/finishExit.js';
import { planFold } from '../../../src/supervisor/fold.js';

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
/** The committed turn as the fold leaves it: the outcome planFold makes of the result. */
const committed = (principal: string | null, finish?: TurnResult['finish']) => {
  const r = result(finish);
  return { event: event(principal), outcome: planFold(r, 1).outcome, result: r };
};

describe('classifyExitAsk', () => {
  it('asks to exit only for a finish with exit: true, with its status (default completed)', () => {
    assert.deepEqual(classifyExitAsk(committed(null)), { exit: false });
    assert.deepEqual(classifyExitAsk(committed(null, { status: 'failed' })), { exit: false });
    assert.deepEqual(classifyExitAsk(committed(null, { exit: true })), { exit: true, status: 'completed' });
    assert.deepEqual(classifyExitAsk(committed('operator', { status: 'refused', exit: true })), {
      exit: true,
      status: 'refused',
    });
  });

  it("refuses the exit of a user's or an agent's turn", () => {
    const ask = classifyExitAsk(committed('user:alice', { exit: true }));
    assert.equal(ask.exit, 'refused');
  });

  it('still asks when the fold was retried after a store error (only the outcome survives, no result)', () => {
    // Premise: the ask used to be read from `result.finish`, which a retried fold does not carry.
    const { outcome } = committed('operator', { status: 'refused', exit: true });
    assert.equal(outcome.finish_exit, true);
    const stored = JSON.parse(JSON.stringify(outcome)) as InboxOutcome;
    assert.deepEqual(classifyExitAsk({ event: event('operator'), outcome: stored }), {
      exit: true,
      status: 'refused',
    });
    const plain: InboxOutcome = { status: 'completed', reply: '', finish_status: 'completed' };
    assert.deepEqual(classifyExitAsk({ event: event('operator'), outcome: plain }), { exit: false });
  });
});
