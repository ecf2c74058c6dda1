// The work ports: tools reach the producer plugged in; with none, message.send and side.start are refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkPortSlot } from '../../../src/runtime/workPortSlot.js';
import type { ToolCaller } from '../../../src/tools/toolOutcome.js';

const caller: ToolCaller = { conversation: 'c', principal: 'operator', turnId: 't', depth: 0, kind: 'conversation' };

describe('WorkPortSlot', () => {
  it('refuses while nothing is plugged in, routes to the plugged producer, refuses again once unplugged', async () => {
    const slot = new WorkPortSlot();
    assert.deepEqual(await slot.deliver({ to: 'x', text: 'hi', depth: 1, caller }), {
      ok: false,
      error: 'no producer accepts messages here',
    });
    assert.equal(slot.sideStart(caller, 'dig'), 'no producer starts side tasks here');
    const unplug = slot.plug('deliver', async (req) => ({ ok: true, conversation: req.to, depth: req.depth }));
    slot.plug('sideStart', (c, instruction) => ({ conversation: `${c.conversation}/${instruction}` }));
    assert.deepEqual(await slot.deliver({ to: 'x', text: 'hi', depth: 1, caller }), {
      ok: true,
      conversation: 'x',
      depth: 1,
    });
    assert.deepEqual(slot.sideStart(caller, 'dig'), { conversation: 'c/dig' });
    unplug();
    assert.equal((await slot.deliver({ to: 'x', text: 'hi', depth: 1, caller })).ok, false);
  });

  it('refuses a second producer on the same port', () => {
    const slot = new WorkPortSlot();
    slot.plug('sideStart', () => 'one');
    assert.throws(() => slot.plug('sideStart', () => 'two'), /already plugged/);
  });
});
