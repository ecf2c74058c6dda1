// authenticate: bearer tokens matched in order and in constant time, `any`, and the implicit loopback operator
// (only with no principals configured, and never for a request with an Origin header).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authenticate, IMPLICIT_OPERATOR, principalId, sameSecret } from '../../../src/a2a/principals.js';
import type { A2aPrincipalConfig } from '../../../src/config/types.js';

const alice: A2aPrincipalConfig = { id: 'alice', role: 'user', match: { bearer: 'tok-alice' }, grants: ['fetch*'] };
const bot: A2aPrincipalConfig = { id: 'bot', role: 'agent', match: { bearer: 'tok-bot' }, grants: [] };
const boss: A2aPrincipalConfig = { id: 'boss', role: 'operator', match: { bearer: 'tok-boss' }, grants: [] };
const guest: A2aPrincipalConfig = { id: 'guest', role: 'user', match: { any: true }, grants: [] };

const local = { remoteLoopback: true };
const remote = { remoteLoopback: false };

describe('authenticate', () => {
  it('matches a bearer exactly and names the principal by role', () => {
    const config = { principals: [alice, bot, boss] };
    assert.deepEqual(authenticate(config, { ...remote, authorization: 'Bearer tok-alice' }), {
      id: 'user:alice',
      role: 'user',
      grants: ['fetch*'],
    });
    assert.equal(
      (authenticate(config, { ...remote, authorization: 'bearer tok-bot' }) as { id: string }).id,
      'agent:bot',
    );
    assert.deepEqual(authenticate(config, { ...remote, authorization: 'Bearer tok-boss' }), {
      id: 'operator',
      role: 'operator',
      grants: [],
    });
  });

  it('refuses a junk token, a near miss, another scheme and an empty bearer', () => {
    const config = { principals: [alice, guest] };
    for (const authorization of [
      'Bearer junk',
      'Bearer tok-alic',
      'Bearer tok-alice2',
      'Basic dG9rLWFsaWNl',
      'Bearer ',
    ]) {
      const result = authenticate(config, { ...local, authorization });
      assert.ok('refused' in result, authorization);
    }
  });

  it('lets {any: true} match a caller that presents no token, in order', () => {
    assert.equal((authenticate({ principals: [alice, guest] }, remote) as { id: string }).id, 'user:guest');
    const first = authenticate({ principals: [guest, alice] }, { ...remote, authorization: 'Bearer tok-alice' });
    assert.equal((first as { id: string }).id, 'user:alice', 'a token goes to the principal it names');
  });

  it('refuses a caller without a token when no principal matches anyone', () => {
    assert.deepEqual(authenticate({ principals: [alice] }, local), { refused: 'authentication required' });
  });

  it('with no principals, a loopback caller without an Origin header is the operator', () => {
    assert.equal(authenticate({ principals: [] }, local), IMPLICIT_OPERATOR);
    assert.ok('refused' in authenticate({ principals: [] }, remote));
    assert.ok('refused' in authenticate({ principals: [] }, { ...local, origin: 'http://localhost:3000' }));
    assert.ok('refused' in authenticate({ principals: [] }, { ...local, authorization: 'Bearer anything' }));
  });

  it('never makes a configured deployment fall back to the implicit operator', () => {
    assert.ok('refused' in authenticate({ principals: [alice] }, { ...local }));
  });
});

describe('principalId', () => {
  it('is operator for every operator, else role:id', () => {
    assert.equal(principalId({ id: 'boss', role: 'operator' }), 'operator');
    assert.equal(principalId({ id: 'alice', role: 'user' }), 'user:alice');
    assert.equal(principalId({ id: 'bot', role: 'agent' }), 'agent:bot');
  });
});

describe('sameSecret', () => {
  it('is plain equality', () => {
    assert.equal(sameSecret('abc', 'abc'), true);
    assert.equal(sameSecret('abc', 'abd'), false);
    assert.equal(sameSecret('abc', 'abcd'), false);
    assert.equal(sameSecret('', 'a'), false);
    assert.equal(sameSecret('', ''), true);
  });
});
