// The client's SSE parser: events split across chunks, comments dropped, an id-only event kept (it moves the cursor).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFeedEvent } from '../../../src/cli/clientLog.js';
import { SseParser } from '../../../src/client/feedReader.js';

describe('SseParser', () => {
  it('joins an event split across chunks and drops comments', () => {
    const p = new SseParser();
    assert.deepEqual(p.push(': keepalive\n\nid: 4\nda'), []);
    assert.deepEqual(p.push('ta: {"a":1}\n\n'), [{ id: '4', data: '{"a":1}' }]);
  });

  it('keeps named events and an id-only event', () => {
    const p = new SseParser();
    const out = p.push('event: reload\ndata: {}\n\nid: 9\n\n');
    assert.deepEqual(out, [{ event: 'reload', data: '{}' }, { id: '9' }]);
  });
});

describe('describeFeedEvent', () => {
  it('prints seq, kind and the fields that matter', () => {
    const line = describeFeedEvent({
      seq: 3,
      ts: 0,
      kind: 'tool',
      data: { task: 't1', name: 'echo', status: 'ok', args: '{}' },
    });
    assert.equal(line, '3 tool t1 echo ok {}');
  });
});
