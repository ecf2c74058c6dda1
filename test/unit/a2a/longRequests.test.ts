// longRequestLimit, isLongRequest and LongRequests: a principal's share of connections held by streams and
// blocking sends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLongRequest, LongRequests, longRequestLimit } from '../../../src/a2a/longRequests.js';

describe('longRequestLimit', () => {
  it('is a2a.max_long_requests, but never more than half of the connections', () => {
    assert.equal(longRequestLimit({ max_long_requests: 64, max_connections: 512 }), 64);
    assert.equal(longRequestLimit({ max_long_requests: 64, max_connections: 20 }), 10);
    assert.equal(longRequestLimit({ max_long_requests: 64, max_connections: 1 }), 1);
  });
});

describe('isLongRequest', () => {
  it('counts streams and blocking sends, not a send that returns at once or a read', () => {
    assert.equal(isLongRequest('SendStreamingMessage', {}), true);
    assert.equal(isLongRequest('SubscribeToTask', {}), true);
    assert.equal(isLongRequest('SendMessage', { params: {} }), true);
    assert.equal(isLongRequest('SendMessage', { params: { configuration: { returnImmediately: true } } }), false);
    assert.equal(isLongRequest('GetTask', {}), false);
  });
});

describe('LongRequests', () => {
  it('holds up to the limit per principal and frees a place once per release', () => {
    const long = new LongRequests();
    const first = long.hold('user:a', 2);
    assert.ok(first && long.hold('user:a', 2));
    assert.equal(long.hold('user:a', 2), null);
    assert.ok(long.hold('user:b', 2), 'another principal has its own share');
    first();
    first();
    assert.ok(long.hold('user:a', 2));
    assert.equal(long.hold('user:a', 2), null, 'a second release of one hold frees nothing more');
  });
});
