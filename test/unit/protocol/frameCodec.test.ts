import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeFrame, FrameDecoder, FrameError } from '../../../src/protocol/frameCodec.js';

describe('FrameDecoder', () => {
  it('round-trips frames split at any byte, including payloads with newlines', () => {
    const frames = [{ type: 'ready' }, { type: 'event', event: 'turn.tool', fields: { text: 'a\nb' } }];
    const bytes = Buffer.concat(frames.map(encodeFrame));
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const d = new FrameDecoder();
      const out = [...d.push(bytes.subarray(0, cut)), ...d.push(bytes.subarray(cut))];
      assert.deepEqual(out, frames);
      assert.equal(d.pending, false);
    }
  });

  it('refuses a declared length over the limit without allocating it', () => {
    const d = new FrameDecoder(1024);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(4096);
    assert.throws(() => d.push(head), FrameError);
  });

  it('refuses a frame that is not JSON', () => {
    const body = Buffer.from('not json');
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    assert.throws(() => new FrameDecoder().push(Buffer.concat([head, body])), /not valid JSON/);
  });

  it('reports a partial frame as pending', () => {
    const d = new FrameDecoder();
    d.push(encodeFrame({ type: 'ready' }).subarray(0, 6));
    assert.equal(d.pending, true);
  });
});
