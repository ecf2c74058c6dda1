// A credential in a URL (interfaces §5 case 12): which query parameters are refused, and that only the name is told.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { credentialInUrl, urlCredentialRefusal } from '../../../src/a2a/urlCredential.js';

describe('credentialInUrl', () => {
  it('names ?bearer= and the common spellings, whatever their case', () => {
    assert.equal(credentialInUrl('/ui?bearer=abc'), 'bearer');
    assert.equal(credentialInUrl('/feed?since=3&Token=abc'), 'token');
    assert.equal(credentialInUrl('/?access_token=abc'), 'access_token');
    assert.equal(credentialInUrl('/ui/session?api_key=abc'), 'api_key');
  });

  it('lets every other query through', () => {
    assert.equal(credentialInUrl('/feed?since=latest'), null);
    assert.equal(credentialInUrl('/ui/c/x'), null);
    assert.equal(credentialInUrl('/feed?since=1&tokens=3'), null);
  });

  it('tells the parameter, never its value', () => {
    const line = urlCredentialRefusal(credentialInUrl('/ui?bearer=s3cret') ?? '');
    assert.match(line, /\?bearer=\) is refused/);
    assert.ok(!line.includes('s3cret'));
  });
});
