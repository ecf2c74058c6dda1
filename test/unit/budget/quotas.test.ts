// A principal's storage quotas: the first quota a message would pass refuses it, naming the quota, its limit and
// the principal; a message within every quota (or with no quotas) passes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conversationRefusal, QuotaExceeded, quotaRefusal, quotasOf } from '../../../src/budget/quotas.js';
import { DaemonError } from '../../../src/errors.js';

const use = { conversations: 2, storedBytes: 900, messageBytes: 50, newConversation: false };
const P = 'user:alice';

describe('quotaRefusal', () => {
  it('passes a message within every quota, and any message without quotas', () => {
    assert.equal(quotaRefusal(P, { message_bytes: 50, conversations: 2, stored_bytes: 950 }, use), null);
    assert.equal(quotaRefusal(P, undefined, { ...use, messageBytes: 1e9, newConversation: true }), null);
  });

  it('refuses a message larger than message_bytes', () => {
    assert.deepEqual(quotaRefusal(P, { message_bytes: 49 }, use), {
      quota: 'message_bytes',
      limit: 49,
      principal: P,
      wanted: 50,
    });
  });

  it('refuses a new conversation past the conversations quota, but not a message to one it owns', () => {
    const quotas = { conversations: 2 };
    assert.equal(quotaRefusal(P, quotas, use), null);
    assert.equal(quotaRefusal(P, quotas, { ...use, newConversation: true })?.quota, 'conversations');
  });

  it('refuses a message that would take the stored bytes past stored_bytes', () => {
    assert.equal(quotaRefusal(P, { stored_bytes: 949 }, use)?.quota, 'stored_bytes');
  });

  it('says which quota, its limit and the principal in one line', () => {
    const err = new QuotaExceeded({ quota: 'stored_bytes', limit: 949, principal: P, wanted: 950 });
    assert.equal(
      err.message,
      'quota stored_bytes exceeded for principal user:alice: limit 949 bytes, this message needs 950',
    );
  });

  it('is a DaemonError with code quota_exceeded, not retryable (the same request stays refused)', () => {
    const err = new QuotaExceeded({ quota: 'conversations', limit: 2, principal: P, wanted: 3 });
    assert.ok(err instanceof DaemonError);
    assert.equal(err.code, 'quota_exceeded');
    assert.equal(err.retryable, false);
  });
});

describe('conversationRefusal and quotasOf', () => {
  it('refuses a conversation past the conversations quota alone, whatever the bytes', () => {
    assert.equal(conversationRefusal(P, { conversations: 2, stored_bytes: 1 }, 1), null);
    assert.deepEqual(conversationRefusal(P, { conversations: 2 }, 2), {
      quota: 'conversations',
      limit: 2,
      principal: P,
      wanted: 3,
    });
  });

  it("finds a principal's quotas by the id it acts under", () => {
    const principals = [{ id: 'alice', role: 'user', match: { any: true }, quotas: { conversations: 1 } }] as never;
    assert.deepEqual(quotasOf(principals, P), { conversations: 1 });
    assert.equal(quotasOf(principals, 'operator'), undefined);
    assert.equal(quotasOf(principals, null), undefined);
  });
});
