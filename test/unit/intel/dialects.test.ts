import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropicHeaders, anthropicUrl, openAiHeaders, openAiUrl } from '../../../src/intel/dialects.js';

describe('endpoint URLs', () => {
  it('openai: a base gets /chat/completions, a full URL is kept', () => {
    assert.equal(openAiUrl('http://h:1/v1/').href, 'http://h:1/v1/chat/completions');
    assert.equal(openAiUrl('https://h/x/chat/completions').href, 'https://h/x/chat/completions');
  });
  it('anthropic: a base gets /v1/messages, a /v1 base /messages, a full URL is kept', () => {
    assert.equal(anthropicUrl('https://api.anthropic.com').href, 'https://api.anthropic.com/v1/messages');
    assert.equal(anthropicUrl('https://api.anthropic.com/').href, 'https://api.anthropic.com/v1/messages');
    assert.equal(anthropicUrl('http://127.0.0.1:9/v1').href, 'http://127.0.0.1:9/v1/messages');
    assert.equal(anthropicUrl('https://gw/anthropic/v1/messages').href, 'https://gw/anthropic/v1/messages');
  });
});

describe('auth headers', () => {
  const token = 'sk-ant-secret';
  it('openai: Bearer token over configured headers', () => {
    const h = openAiHeaders({ token, headers: [['X-Org', 'o']] });
    assert.equal(h.authorization, `Bearer ${token}`);
    assert.equal(h['x-org'], 'o');
  });
  it('anthropic default: x-api-key and anthropic-version, no authorization', () => {
    const h = anthropicHeaders({ token, headers: [] });
    assert.equal(h['x-api-key'], token);
    assert.equal(h['anthropic-version'], '2023-06-01');
    assert.equal(h.authorization, undefined);
  });
  it('anthropic Bearer mode: `Authorization: Bearer` takes the token, no x-api-key', () => {
    const h = anthropicHeaders({ token, headers: [['Authorization', 'Bearer']] });
    assert.equal(h.authorization, `Bearer ${token}`);
    assert.equal(h['x-api-key'], undefined);
  });
  it('anthropic: a full authorization value is sent as given, no x-api-key', () => {
    const h = anthropicHeaders({ token, headers: [['authorization', 'Bearer other-credential']] });
    assert.equal(h.authorization, 'Bearer other-credential');
    assert.equal(h['x-api-key'], undefined);
  });
  it('anthropic: a configured version wins; no token ⇒ no key header', () => {
    const h = anthropicHeaders({ token: null, headers: [['Anthropic-Version', '2024-01-01']] });
    assert.equal(h['anthropic-version'], '2024-01-01');
    assert.equal(h['x-api-key'], undefined);
  });
});
