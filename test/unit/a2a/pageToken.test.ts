// ListTasks page tokens: a token names the page's last task and decodes back; anything else is null.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodePageToken, encodePageToken } from '../../../src/a2a/pageToken.js';

describe('page tokens', () => {
  it('round-trips the place of a page’s last task', () => {
    const cursor = { updated: 1_764_000_000_123, id: '01KB0000000000000000000000' };
    assert.deepEqual(decodePageToken(encodePageToken(cursor)), cursor);
  });

  it('is null for a token it did not make', () => {
    const made = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const token of ['', 'not-a-token', made({ updated: 1, id: 'x' }), made([1.5, 'x']), made([1, 2]), made([1])])
      assert.equal(decodePageToken(token), null, token);
  });
});
