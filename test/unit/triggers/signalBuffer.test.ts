// A run's signal buffer (producers reference §5 item 8): held until taken, bounded, a replay held once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BufferedSignal } from '../../../src/domain/workflow.js';
import { bufferSignal, takeSignal } from '../../../src/triggers/signalBuffer.js';

const sig = (name: string, key: string): BufferedSignal => ({ name, payload: { key }, key, at: 0 });

describe('bufferSignal', () => {
  it('appends in order and holds a replayed key once', () => {
    const first = bufferSignal([], sig('go', 'k1'));
    assert.equal(first.type, 'buffered');
    const held = first.type === 'buffered' ? first.buffer : [];
    assert.deepEqual(bufferSignal(held, sig('go', 'k1')), { type: 'duplicate' });
    const second = bufferSignal(held, sig('stop', 'k2'));
    assert.deepEqual(second.type === 'buffered' ? second.buffer.map((s) => s.key) : [], ['k1', 'k2']);
  });

  it('drops the oldest past the bound', () => {
    let buffer: BufferedSignal[] = [];
    let dropped: BufferedSignal | null = null;
    for (const key of ['a', 'b', 'c']) {
      const out = bufferSignal(buffer, sig('go', key), 2);
      assert.equal(out.type, 'buffered');
      if (out.type === 'buffered') ({ buffer, dropped } = out);
    }
    assert.deepEqual(
      buffer.map((s) => s.key),
      ['b', 'c'],
    );
    assert.equal(dropped?.key, 'a');
  });
});

describe('takeSignal', () => {
  it('takes the oldest of that name and leaves the rest in order', () => {
    const buffer = [sig('go', 'a'), sig('stop', 'b'), sig('go', 'c')];
    const taken = takeSignal(buffer, 'go');
    assert.equal(taken.signal?.key, 'a');
    assert.deepEqual(
      taken.buffer.map((s) => s.key),
      ['b', 'c'],
    );
    assert.deepEqual(takeSignal(taken.buffer, 'none'), { signal: null, buffer: taken.buffer });
  });
});
