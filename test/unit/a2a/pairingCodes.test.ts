// The web UI's one-time pairing codes (issue 18 item 4, interfaces §2.2): single use, short-lived, and wrong
// guesses lock pairing for a minute, with the clock as an argument; who a code and its session act as.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  normalizeCode,
  PAIRED_USER,
  PAIRING_TTL_MS,
  PairingCodes,
  pairedPrincipal,
  pairingPrincipalId,
  wantsStartCode,
} from '../../../src/a2a/pairingCodes.js';
import { IMPLICIT_OPERATOR } from '../../../src/a2a/principals.js';
import type { A2aPrincipalConfig } from '../../../src/config/types.js';
import { memoryTimersPort } from '../../../src/store/memoryStore.js';

/** A deterministic pick: 0, 1, 2, … so two codes differ. */
function counter(): (n: number) => number {
  let i = 0;
  return (n) => i++ % n;
}

const USER: A2aPrincipalConfig = { id: 'alice', role: 'user', match: { bearer: 'alice-token' }, grants: [] };
const OPERATOR: A2aPrincipalConfig = { id: 'ops', role: 'operator', match: { bearer: 'ops-token' }, grants: ['x'] };
const on = (principals: A2aPrincipalConfig[], role: 'operator' | 'user' = 'operator') => ({
  principals,
  pairing: { enabled: true, role },
});

describe('PairingCodes', () => {
  it('redeems a code once, as the principal it was issued for', async () => {
    const codes = new PairingCodes(counter(), memoryTimersPort());
    const { code, expiresAt } = await codes.issue('operator', 1_000);
    assert.match(code, /^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    assert.equal(expiresAt, 1_000 + PAIRING_TTL_MS);
    assert.deepEqual(await codes.redeem(code.toLowerCase().replace('-', ' '), 2_000), { principalId: 'operator' });
    const again = await codes.redeem(code, 2_001);
    assert.ok('refused' in again && !again.locked, 'a used code is refused');
  });

  it('refuses an expired code', async () => {
    const codes = new PairingCodes(counter(), memoryTimersPort());
    const { code } = await codes.issue('operator', 0);
    const late = await codes.redeem(code, PAIRING_TTL_MS);
    assert.ok('refused' in late, 'refused at its expiry');
    // The premise: the same code just before its expiry would have worked.
    const fresh = new PairingCodes(counter(), memoryTimersPort());
    const same = (await fresh.issue('operator', 0)).code;
    assert.equal(same, code);
    assert.ok('principalId' in (await fresh.redeem(code, PAIRING_TTL_MS - 1)));
  });

  it('locks pairing for a minute after five wrong codes, even for a right one', async () => {
    const codes = new PairingCodes(counter(), memoryTimersPort());
    const { code } = await codes.issue('operator', 0);
    for (let i = 0; i < 5; i++) assert.ok('refused' in (await codes.redeem('AAAA-AAAA', 1_000 + i)));
    const locked = await codes.redeem(code, 2_000);
    assert.deepEqual(locked, { refused: 'too many pairing attempts; wait a minute', locked: true, report: true });
    // Once the wrong guesses are a minute old, the code (still live) works again.
    assert.ok('principalId' in (await codes.redeem(code, 1_004 + 60_000)));
  });

  it('reports a refusal while locked at most once a minute', async () => {
    const codes = new PairingCodes(counter(), memoryTimersPort());
    const locked: boolean[] = [];
    const unlocked: boolean[] = [];
    // A guess every second for three minutes: each minute, five wrong guesses lock pairing for the rest of it.
    for (let t = 0; t < 180_000; t += 1_000) {
      const answer = await codes.redeem('AAAA-AAAA', t);
      if ('refused' in answer) (answer.locked ? locked : unlocked).push(answer.report);
    }
    assert.ok(unlocked.every(Boolean), 'every unlocked wrong guess is reported');
    assert.ok(locked.length > 100, `premise: most guesses met the lock (${locked.length})`);
    assert.equal(locked.filter(Boolean).length, 3, 'one report per locked minute');
  });

  it('a code issued by one replica is redeemed once by another over the same keys; only its hash is stored', async () => {
    const keys = new Map<string, number>();
    const shared = memoryTimersPort();
    const remember = shared.remember;
    shared.remember = (key, at) => {
      keys.set(key, at);
      return remember(key, at);
    };
    const a = new PairingCodes(counter(), shared);
    const b = new PairingCodes(counter(), shared);
    const { code } = await a.issue('operator', 0);
    assert.ok(![...keys.keys()].some((k) => k.includes(normalizeCode(code))), 'the code itself is not stored');
    assert.deepEqual(await b.redeem(code, 1), { principalId: 'operator' });
    assert.ok('refused' in (await a.redeem(code, 2)), 'spent for every replica');
  });

  it('ignores case, spaces and dashes in what is typed', () => {
    assert.equal(normalizeCode(' ab12-cd 34 '), 'AB12CD34');
  });
});

describe('pairedPrincipal', () => {
  it('resolves a session against the current principals, so a reload that drops one ends it', () => {
    assert.deepEqual(pairedPrincipal(on([OPERATOR, USER]), 'operator'), {
      id: 'operator',
      role: 'operator',
      grants: ['x'],
    });
    assert.deepEqual(pairedPrincipal(on([USER]), 'operator'), {
      refused: 'the paired principal operator is no longer configured',
    });
    assert.equal(pairedPrincipal(on([]), 'operator'), IMPLICIT_OPERATOR);
    assert.deepEqual(pairedPrincipal(on([USER], 'user'), PAIRED_USER), { id: PAIRED_USER, role: 'user', grants: [] });
    assert.ok('refused' in pairedPrincipal(on([USER], 'operator'), PAIRED_USER), 'user:paired only while role is user');
    const off = { principals: [], pairing: { enabled: false, role: 'operator' as const } };
    assert.deepEqual(pairedPrincipal(off, 'operator'), { refused: 'pairing is off (a2a.pairing.enabled)' });
  });

  it('pairs as the configured role', () => {
    assert.equal(pairingPrincipalId(on([USER], 'user')), PAIRED_USER);
    assert.equal(pairingPrincipalId(on([OPERATOR])), 'operator');
  });
});

describe('wantsStartCode', () => {
  it('prints a code at start only with no principals, pairing on, a loopback listener and a terminal', () => {
    assert.equal(wantsStartCode(on([]), 'http://127.0.0.1:8420', true), true);
    // A user-only config: the implicit operator does not exist, so a start code would pair as nobody configured.
    assert.equal(wantsStartCode(on([USER]), 'http://127.0.0.1:8420', true), false);
    assert.equal(wantsStartCode(on([]), 'http://127.0.0.1:8420', false), false, 'not into a file or pipe');
    assert.equal(wantsStartCode(on([]), 'http://10.0.0.1:8420', true), false, 'not on a non-loopback listener');
    const off = { principals: [], pairing: { enabled: false, role: 'operator' as const } };
    assert.equal(wantsStartCode(off, 'http://127.0.0.1:8420', true), false, 'not with pairing off');
  });
});
