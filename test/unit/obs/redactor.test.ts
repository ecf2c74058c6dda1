import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isCredentialHeader,
  knownSecrets,
  REDACTED,
  redact,
  redactDeep,
  redactWith,
  registerSecret,
} from '../../../src/obs/redactor.js';

describe('redactWith', () => {
  it('replaces every occurrence of each value and leaves values under 4 characters alone', () => {
    assert.equal(redactWith('a tok9 and tok9, on', ['tok9', 'on']), `a ${REDACTED} and ${REDACTED}, on`);
  });
});

describe('the registry', () => {
  it('replaces a secret that contains another whole, whatever the registration order', () => {
    registerSecret('inner-77aa');
    registerSecret('outer-inner-77aa-zz');
    // Premise: replacing the shorter first would leave "outer-[redacted]-zz".
    assert.equal(redactWith('outer-inner-77aa-zz', ['inner-77aa']), `outer-${REDACTED}-zz`);
    assert.equal(redact('key outer-inner-77aa-zz'), `key ${REDACTED}`);
    assert.ok(knownSecrets().includes('inner-77aa'));
    registerSecret('no');
    assert.ok(!knownSecrets().includes('no'), 'too short to register');
  });

  it('redactDeep copies a frame-shaped value with every string redacted and keys kept', () => {
    registerSecret('deep-secret-31');
    const frame = {
      type: 'turn_done',
      turn: { error: 'HTTP 401: deep-secret-31', messages: [{ role: 'note', text: 'x deep-secret-31 y' }], rounds: 2 },
    };
    const out = redactDeep(frame);
    assert.deepEqual(out, {
      type: 'turn_done',
      turn: { error: `HTTP 401: ${REDACTED}`, messages: [{ role: 'note', text: `x ${REDACTED} y` }], rounds: 2 },
    });
    assert.equal(frame.turn.error, 'HTTP 401: deep-secret-31', 'the original is untouched');
  });

  it('redactDeep never rewrites a structural field, but does every string of tool arguments and results', () => {
    // Premise: with every string rewritten, a registered "assistant-role-x" turned `role` into "[redacted]".
    registerSecret('assistant-role-x');
    const frame = {
      type: 'turn_done',
      turn: {
        status: 'completed',
        messages: [
          { role: 'assistant-role-x', content: [{ type: 'text', text: 'say assistant-role-x' }] },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 't1', name: 'f', input: { name: 'assistant-role-x' } }],
          },
        ],
      },
    };
    const out = redactDeep(frame);
    assert.equal(out.turn.messages[0]?.role, 'assistant-role-x', 'role is structure');
    assert.deepEqual(out.turn.messages[0]?.content, [{ type: 'text', text: `say ${REDACTED}` }]);
    assert.deepEqual(out.turn.messages[1]?.content, [
      { type: 'tool_use', id: 't1', name: 'f', input: { name: REDACTED } },
    ]);
    const request = redactDeep({ type: 'tool_request', id: 3, name: 'memory.write', args: { id: 'assistant-role-x' } });
    assert.deepEqual(request.args, { id: REDACTED }, 'tool arguments are text throughout');
  });
});

describe('isCredentialHeader', () => {
  it('knows credential header names and leaves ordinary ones alone', () => {
    for (const name of [
      'Authorization',
      'proxy-authorization',
      'Cookie',
      'X-Api-Key',
      'x-auth-token',
      'Client-Secret',
    ]) {
      assert.ok(isCredentialHeader(name), name);
    }
    for (const name of ['X-Speaker', 'Accept', 'User-Agent', 'X-Org', 'Keep-Alive'])
      assert.ok(!isCredentialHeader(name), name);
  });
});
