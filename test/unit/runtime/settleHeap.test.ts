// The daemon's one compaction after start (runtime/settleHeap.ts): left to an operator who chose about the collector,
// and it exposes nothing to scripts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maySettle, settleHeap } from '../../../src/runtime/settleHeap.js';

describe('settleHeap', () => {
  it('is left to an operator whose node flags or NODE_OPTIONS name the collector', () => {
    assert.equal(maySettle({}, []), true);
    assert.equal(maySettle({ NODE_OPTIONS: '--max-semi-space-size=1' }, ['--no-opt']), true);
    assert.equal(maySettle({}, ['--expose-gc']), false);
    assert.equal(maySettle({ NODE_OPTIONS: '--compact-on-every-full-gc' }, []), false);
    assert.equal(maySettle({}, ['--no-compact']), false);
  });

  it('collects without exposing gc to this realm', () => {
    const before = (globalThis as { gc?: unknown }).gc;
    settleHeap();
    assert.equal((globalThis as { gc?: unknown }).gc, before);
  });
});
