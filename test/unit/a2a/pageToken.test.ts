// ListTasks page tokens: a token names the page's last task and decodes back only for the caller and query it
// was made for, under the same key; anything else is null.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodePageToken, encodePageToken } from '../../../src/a2a/pageToken.js';

const signWith = (key: string) => (text: string) => createHmac('sha256', key).update(text).digest('base64url');
const sign = signWith('key-1');
const alice = { principal: 'user:alice' };
const cursor = { id: '01KB0000000000000000000000' };

describe('page tokens', () => {
  it('round-trips the place of a page’s last task for the same caller and query', () => {
    assert.deepEqual(decodePageToken(encodePageToken(cursor, alice, sign), alice, sign), cursor);
    const filtered = { ...alice, contextId: 'c1', status: 'TASK_STATE_WORKING' };
    assert.deepEqual(decodePageToken(encodePageToken(cursor, filtered, sign), filtered, sign), cursor);
  });

  it('is null for another caller, another filter or another key', () => {
    const token = encodePageToken(cursor, alice, sign);
    // Premise: the token's first part is just the id; without the signature bob could page from alice's place.
    assert.equal(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString(), cursor.id);
    assert.equal(decodePageToken(token, { principal: 'user:bob' }, sign), null);
    assert.equal(decodePageToken(token, { ...alice, contextId: 'c1' }, sign), null);
    assert.equal(decodePageToken(token, { ...alice, status: 'TASK_STATE_WORKING' }, sign), null);
    assert.equal(decodePageToken(token, alice, signWith('key-2')), null, 'a token of an earlier run');
  });

  it('is null for a token it did not make', () => {
    const good = encodePageToken(cursor, alice, sign);
    const forged = `${Buffer.from('01ZZ').toString('base64url')}.${good.split('.')[1]}`;
    for (const token of ['', 'not-a-token', '.', `${good}.x`, forged, `${good.slice(0, -1)}A`])
      assert.equal(decodePageToken(token, alice, sign), null, token);
  });
});
