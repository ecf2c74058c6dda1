import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { knownSecrets, REDACTED, redact, redactDeep, redactWith, registerSecret } from '../../../src/obs/redactor.js';

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
});
