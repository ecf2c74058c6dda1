import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sameOrigin, sessionCookie, sessionIdOf, WebSessions } from '../../../src/a2a/webSessions.js';

describe('WebSessions', () => {
  it('finds the session the cookie names, and forgets it when it expires or is closed', () => {
    const sessions = new WebSessions();
    const id = sessions.open('tok', 1_000);
    const header = `theme=dark; agentd_session=${id}`;
    assert.equal(sessions.tokenOf(header, 2_000), 'tok');
    assert.equal(sessions.tokenOf(`agentd_session=${'0'.repeat(64)}`, 2_000), null, 'an unknown id is no session');
    assert.equal(sessions.tokenOf(header, 1_000 + 12 * 3_600_000), null, 'expired after 12 h');
    const other = sessions.open('tok2', 0);
    sessions.close(`agentd_session=${other}`);
    assert.equal(sessions.tokenOf(`agentd_session=${other}`, 1), null, 'closed by sign-out');
  });

  it('reads only a well-formed session id from the Cookie header', () => {
    assert.equal(sessionIdOf(undefined), null);
    assert.equal(sessionIdOf('agentd_session=short'), null);
    assert.equal(sessionIdOf(`a=b; agentd_session=${'ab'.repeat(32)}`), 'ab'.repeat(32));
  });

  it('sets HttpOnly and SameSite=Strict, and Secure only over TLS', () => {
    assert.match(sessionCookie('x', false), /; HttpOnly; SameSite=Strict;/);
    assert.doesNotMatch(sessionCookie('x', false), /Secure/);
    assert.match(sessionCookie('x', true), /; Secure$/);
  });

  it('accepts only the origin of the host the request was sent to', () => {
    assert.equal(sameOrigin('http://127.0.0.1:8420', '127.0.0.1:8420', false), true);
    assert.equal(sameOrigin('http://evil.example', '127.0.0.1:8420', false), false);
    assert.equal(sameOrigin('http://127.0.0.1:8420', '127.0.0.1:8420', true), false, 'scheme must match');
    assert.equal(sameOrigin(undefined, '127.0.0.1:8420', false), false, 'no Origin is refused');
  });
});
