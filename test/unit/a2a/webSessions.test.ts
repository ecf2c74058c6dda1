import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashSecret, sessionCookie, sessionIdOf, WebSessions } from '../../../src/a2a/webSessions.js';
import { memoryTimersPort } from '../../../src/store/memoryStore.js';

describe('WebSessions', () => {
  it('finds the session the cookie names, and forgets it when it expires or is closed', async () => {
    const sessions = new WebSessions(memoryTimersPort());
    const ttl = 12 * 3_600_000;
    const id = await sessions.open('tok', 1_000, ttl);
    const header = `theme=dark; agentd_session=${id}`;
    assert.deepEqual(await sessions.of(header, 2_000), { tokenHash: hashSecret('tok') });
    const forged = `agentd_session=${'0'.repeat(64)}${id.slice(64)}`;
    assert.equal(await sessions.of(forged, 2_000), null, 'an unknown id is no session');
    assert.equal(await sessions.of(header, 1_000 + ttl), null, 'expired after its ttl');
    const other = await sessions.open('tok2', 0, ttl);
    await sessions.close(`agentd_session=${other}`);
    assert.equal(await sessions.of(`agentd_session=${other}`, 1), null, 'closed by sign-out');
  });

  it('a paired session opened on one replica is found by another over the same keys, for its ttl', async () => {
    const keys = memoryTimersPort();
    const a = new WebSessions(keys);
    const b = new WebSessions(keys);
    const id = await a.openPaired('user:paired', 0, 60_000);
    assert.deepEqual(await b.of(`agentd_session=${id}`, 59_999), { principalId: 'user:paired' });
    assert.equal(await b.of(`agentd_session=${id}`, 60_000), null);
    assert.equal(a.pairedCount(1), 1);
    // A cookie whose expiry or principal was edited names no stored session.
    const [rand, , stands] = id.split('.');
    assert.equal(await b.of(`agentd_session=${rand}.99999999.${stands}`, 1), null);
    assert.equal(await b.of(`agentd_session=${rand}.60000.p${Buffer.from('operator').toString('base64url')}`, 1), null);
  });

  it('reads only a well-formed session id from the Cookie header', () => {
    assert.equal(sessionIdOf(undefined), null);
    assert.equal(sessionIdOf('agentd_session=short'), null);
    const value = `${'ab'.repeat(32)}.5.p${Buffer.from('operator').toString('base64url')}`;
    assert.equal(sessionIdOf(`a=b; agentd_session=${value}`), value);
  });

  it('sets HttpOnly and SameSite=Strict, and Secure only over TLS', () => {
    assert.match(sessionCookie('x', false, 3_600_000), /; HttpOnly; SameSite=Strict; Max-Age=3600$/);
    assert.doesNotMatch(sessionCookie('x', false, 1_000), /Secure/);
    assert.match(sessionCookie('x', true, 1_000), /; Secure$/);
  });
});
