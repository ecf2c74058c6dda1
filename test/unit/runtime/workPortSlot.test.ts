// The work ports: a typed registry by name. A tool finds the producer plugged in, or null (it answers that it is
// not available); a new port is declared from its producer's own file (here, this one) and needs nothing else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkPortSlot } from '../../../src/runtime/workPortSlot.js';
import type { ToolCaller } from '../../../src/tools/toolOutcome.js';

// What a future tool-started producer (subagent.run) adds, in its own file.
declare module '../../../src/tools/toolOutcome.js' {
  interface WorkPortMap {
    test_echo(text: string): Promise<string>;
  }
}

const caller: ToolCaller = { conversation: 'c', principal: 'operator', turnId: 't', depth: 0, kind: 'conversation' };

describe('WorkPortSlot', () => {
  it('answers null while nothing is plugged in, routes to the plugged producer, null again once unplugged', async () => {
    const slot = new WorkPortSlot();
    assert.equal(slot.port('deliver'), null);
    assert.equal(slot.port('side_task'), null);
    const unplug = slot.plug('deliver', async (req) => ({ ok: true, conversation: req.to, depth: req.depth }));
    const started: string[] = [];
    slot.plug('side_task', (req) => {
      started.push(`${req.caller.conversation}/${req.instruction}`);
    });
    assert.deepEqual(await slot.port('deliver')?.({ to: 'x', text: 'hi', depth: 1, caller }), {
      ok: true,
      conversation: 'x',
      depth: 1,
    });
    slot.port('side_task')?.({ caller, conversation: 'side-1', instruction: 'dig', depth: 1 });
    assert.deepEqual(started, ['c/dig']);
    unplug();
    assert.equal(slot.port('deliver'), null);
  });

  it('carries a port declared from another file, typed', async () => {
    const slot = new WorkPortSlot();
    assert.equal(slot.port('test_echo'), null);
    slot.plug('test_echo', async (text) => `echo: ${text}`);
    assert.equal(await slot.port('test_echo')?.('hi'), 'echo: hi');
  });

  it('refuses a second producer on the same port', () => {
    const slot = new WorkPortSlot();
    slot.plug('side_task', () => {});
    assert.throws(() => slot.plug('side_task', () => {}), /already plugged/);
  });
});
