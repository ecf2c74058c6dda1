// The client feed's rules: who sees an event, where a reconnecting client resumes, how a cursor is read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetRecheckIn, budgetStateOf, canSee, planResume, readCursor } from '../../../src/a2a/feedPolicy.js';

const ALICE = { id: 'user:alice', role: 'user' as const };
const OPERATOR = { id: 'operator', role: 'operator' as const };

describe('canSee', () => {
  it('shows a user its own events and instance-wide ones, never another principal’s or the operator’s', () => {
    assert.equal(canSee(ALICE, { audience: 'user:alice' }), true);
    assert.equal(canSee(ALICE, { audience: '*' }), true);
    assert.equal(canSee(ALICE, { audience: 'user:bob' }), false);
    assert.equal(canSee(ALICE, { audience: null }), false);
  });

  it('shows the operator everything', () => {
    for (const audience of ['user:bob', '*', null]) assert.equal(canSee(OPERATOR, { audience }), true);
  });
});

describe('planResume', () => {
  it('replays exactly what follows a cursor inside the retained range', () => {
    assert.deepEqual(planResume(7, { oldest: 3, newest: 10 }), { from: 7, reload: false });
    assert.deepEqual(planResume(2, { oldest: 3, newest: 10 }), { from: 2, reload: false }, 'just before the oldest');
    assert.deepEqual(planResume(10, { oldest: 3, newest: 10 }), { from: 10, reload: false });
  });

  it('starts from the oldest retained without a cursor', () => {
    assert.deepEqual(planResume(null, { oldest: 3, newest: 10 }), { from: 2, reload: false });
    assert.deepEqual(planResume(null, { oldest: null, newest: 0 }), { from: 0, reload: false });
  });

  it('tells a client whose cursor fell out of retention to reload, then goes on from the oldest', () => {
    assert.deepEqual(planResume(1, { oldest: 3, newest: 10 }), { from: 2, reload: true });
    assert.deepEqual(planResume(4, { oldest: null, newest: 10 }), { from: 10, reload: true }, 'all pruned');
  });

  it('tells a client ahead of the store (a replaced store) to reload from the start', () => {
    assert.deepEqual(planResume(50, { oldest: 1, newest: 10 }), { from: 0, reload: true });
  });
});

describe('readCursor', () => {
  it('prefers Last-Event-ID over ?since=, reads latest as the newest seq, refuses garbage', () => {
    assert.equal(readCursor('3', '8', 20), 8);
    assert.equal(readCursor('3', undefined, 20), 3);
    assert.equal(readCursor(null, undefined, 20), null);
    assert.equal(readCursor('latest', undefined, 20), 20);
    assert.deepEqual(readCursor('-1', undefined, 20), { refused: 'feed cursor "-1": expected a seq' });
  });
});

describe('budgetStateOf', () => {
  const summary = (tokens: number, requests: number, on_exhausted: string) => ({
    windows: [{ per: 'hour', tokens, max_tokens: 100, requests, max_requests: null }],
    lifetime_tokens: tokens,
    max_lifetime_tokens: null,
    on_exhausted,
  });

  it('is ok while every window has room, and null without an instance budget', () => {
    assert.equal(budgetStateOf(summary(99, 5, 'refuse')), 'ok');
    assert.equal(budgetStateOf(null), null);
  });

  it('shows the tactic once a window is spent', () => {
    assert.equal(budgetStateOf(summary(100, 5, 'wait')), 'waiting');
    assert.equal(budgetStateOf(summary(100, 5, 'slow')), 'waiting');
    assert.equal(budgetStateOf(summary(120, 5, 'degrade')), 'degraded');
    assert.equal(budgetStateOf(summary(100, 5, 'refuse')), 'refusing');
  });

  it('refuses once the lifetime is spent, whatever the tactic', () => {
    assert.equal(budgetStateOf({ ...summary(10, 0, 'wait'), max_lifetime_tokens: 10 }), 'refusing');
  });
});

describe('budgetRecheckIn', () => {
  const at = (iso: string) => Date.parse(iso);
  const summary = (
    windows: Array<{ tokens: number; resets: string }>,
    lifetime = 0,
    maxLifetime: number | null = null,
  ) => ({
    windows: windows.map((w) => ({
      per: 'hour',
      tokens: w.tokens,
      max_tokens: 100,
      requests: 0,
      max_requests: null,
      resets: w.resets,
    })),
    lifetime_tokens: lifetime,
    max_lifetime_tokens: maxLifetime,
    on_exhausted: 'refuse',
  });

  it('waits until the earliest reset of a spent window', () => {
    const now = at('2026-01-01T10:30:00Z');
    const spent = summary([
      { tokens: 100, resets: '2026-01-01T11:00:00Z' },
      { tokens: 5, resets: '2026-01-01T10:45:00Z' },
    ]);
    assert.equal(budgetRecheckIn(spent, now), 30 * 60_000, 'the spent window, not the earlier unspent one');
  });

  it('looks again at most an hour ahead, and never while nothing is spent or the lifetime is', () => {
    const now = at('2026-01-01T00:00:00Z');
    assert.equal(budgetRecheckIn(summary([{ tokens: 100, resets: '2026-01-08T00:00:00Z' }]), now), 3_600_000);
    assert.equal(budgetRecheckIn(summary([{ tokens: 5, resets: '2026-01-01T01:00:00Z' }]), now), null);
    assert.equal(budgetRecheckIn(summary([{ tokens: 100, resets: '2026-01-01T01:00:00Z' }], 500, 500), now), null);
    assert.equal(budgetRecheckIn(null, now), null);
  });
});
