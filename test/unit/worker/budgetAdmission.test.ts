import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { THINKING_ROOM } from '../../../src/intel/requestRules.js';
import { silentLogger } from '../../../src/obs/log.js';
import { admitViaSupervisor, classifyGrant, estimateRequest, type Grant } from '../../../src/worker/budgetAdmission.js';

const req = { model: 'm', system: 'sys', messages: [], tools: [], maxTokens: 0 };

describe('classifyGrant', () => {
  it('goes, perhaps on a degrade model', () => {
    assert.deepEqual(classifyGrant({ ok: true, wait_ms: 0 }), { kind: 'go' });
    assert.deepEqual(classifyGrant({ ok: true, wait_ms: 0, model: 'small' }), { kind: 'go', model: 'small' });
  });
  it('is refused only when the reason says so, else exhausted_tokens', () => {
    assert.deepEqual(classifyGrant({ ok: false, wait_ms: 0, reason: 'refused: over quota' }), {
      kind: 'stop',
      status: 'refused',
      error: 'budget: refused: over quota',
    });
    const other = classifyGrant({ ok: false, wait_ms: 0, reason: 'budget exhausted (instance hour window)' });
    assert.equal(other.kind === 'stop' && other.status, 'exhausted_tokens');
  });
  it('follows the refused flag over the reason text', () => {
    const flagged = classifyGrant({ ok: false, wait_ms: 0, reason: 'over the principal quota', refused: true });
    assert.equal(flagged.kind === 'stop' && flagged.status, 'refused');
    const exhausted = classifyGrant({ ok: false, wait_ms: 0, reason: 'refusal window spent', refused: false });
    assert.equal(exhausted.kind === 'stop' && exhausted.status, 'exhausted_tokens');
  });
  it('waits at least 50 ms', () => {
    assert.deepEqual(classifyGrant({ ok: false, wait_ms: 10 }), { kind: 'wait', ms: 50 });
  });
});

describe('estimateRequest', () => {
  it('counts the system prompt and the default output cap', () => {
    assert.equal(estimateRequest(req), 1 + 4 + 4096);
  });
  it('counts the cap actually sent: a raised cap, plus a reasoning model’s thinking room', () => {
    assert.equal(estimateRequest({ ...req, maxTokens: 8192 }), 1 + 4 + 8192);
    assert.equal(estimateRequest(req, { reasoning: { effort: 'medium' } }), 1 + 4 + 4096 + THINKING_ROOM.medium);
    assert.equal(estimateRequest(req, { reasoning: null }), 1 + 4 + 4096);
  });
});

describe('admitViaSupervisor', () => {
  const io = (grants: Array<Grant | null>, remaining = 60_000) => {
    const asked: number[] = [];
    return {
      asked,
      io: {
        ask: async (estimate: number) => {
          asked.push(estimate);
          return grants.shift() ?? null;
        },
        remainingMs: () => remaining,
        signal: new AbortController().signal,
        log: silentLogger,
        turnId: 't',
      },
    };
  };
  it('waits, asks again, then goes', async () => {
    const { asked, io: x } = io([
      { ok: false, wait_ms: 10 },
      { ok: true, wait_ms: 0 },
    ]);
    assert.deepEqual(await admitViaSupervisor(req, x), { kind: 'go' });
    assert.equal(asked.length, 2);
  });
  it('no answer means cancelled', async () => {
    const { io: x } = io([null]);
    assert.deepEqual(await admitViaSupervisor(req, x), { kind: 'stop', status: 'cancelled' });
  });
  it('a wait past the deadline ends the turn at the deadline', async () => {
    const { io: x } = io([{ ok: false, wait_ms: 5_000 }], 0);
    const out = await admitViaSupervisor(req, x);
    assert.equal(out.kind === 'stop' && out.status, 'deadline');
  });
});
