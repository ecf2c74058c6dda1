// The web UI's one-time pairing codes (issue 18 item 4, interfaces §2.2): single use, short-lived, and wrong
// guesses lock pairing for a minute, with the clock as an argument.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeCode, PAIRING_TTL_MS, PairingCodes } from '../../../src/a2a/pairingCodes.js';
import { IMPLICIT_OPERATOR } from '../../../src/a2a/principals.js';

/** A deterministic pick: 0, 1, 2, … so two codes differ. */
function counter(): (n: number) => number {
  let i = 0;
  return (n) => i++ % n;
}

describe('PairingCodes', () => {
  it('redeems a code once, as the principal it was issued for', () => {
    const codes = new PairingCodes(counter());
    const { code, expiresAt } = codes.issue(IMPLICIT_OPERATOR, 1_000);
    assert.match(code, /^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    assert.equal(expiresAt, 1_000 + PAIRING_TTL_MS);
    assert.deepEqual(codes.redeem(code.toLowerCase().replace('-', ' '), 2_000), { principal: IMPLICIT_OPERATOR });
    const again = codes.redeem(code, 2_001);
    assert.ok('refused' in again && !again.locked, 'a used code is refused');
  });

  it('refuses an expired code', () => {
    const codes = new PairingCodes(counter());
    const { code } = codes.issue(IMPLICIT_OPERATOR, 0);
    const late = codes.redeem(code, PAIRING_TTL_MS);
    assert.ok('refused' in late, 'refused at its expiry');
    // The premise: the same code just before its expiry would have worked.
    const fresh = new PairingCodes(counter());
    const same = fresh.issue(IMPLICIT_OPERATOR, 0).code;
    assert.equal(same, code);
    assert.ok('principal' in fresh.redeem(code, PAIRING_TTL_MS - 1));
  });

  it('locks pairing for a minute after five wrong codes, even for a right one', () => {
    const codes = new PairingCodes(counter());
    const { code } = codes.issue(IMPLICIT_OPERATOR, 0);
    for (let i = 0; i < 5; i++) assert.ok('refused' in codes.redeem('AAAA-AAAA', 1_000 + i));
    const locked = codes.redeem(code, 2_000);
    assert.deepEqual(locked, { refused: 'too many pairing attempts; wait a minute', locked: true });
    // Once the wrong guesses are a minute old, the code (still live) works again.
    assert.ok('principal' in codes.redeem(code, 1_004 + 60_000));
  });

  it('ignores case, spaces and dashes in what is typed', () => {
    assert.equal(normalizeCode(' ab12-cd 34 '), 'AB12CD34');
  });
});
