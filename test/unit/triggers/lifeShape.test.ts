// Job or daemon (producers reference §3.1) and the code `once` runs give (§2.10), as pure policy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  exitCodeForRun,
  hasRecurringStart,
  lastNonZero,
  nextIdleStep,
  printedOutput,
  shapeOf,
} from '../../../src/triggers/lifeShape.js';

const def = (kind: string, armed = true) => ({ armed, steps: { s: { kind }, f: { kind: 'finish' } } });

describe('shapeOf', () => {
  it('auto is a job without a listener or a recurring start, a daemon with either', () => {
    assert.equal(shapeOf('auto', false, false), 'job');
    assert.equal(shapeOf('auto', true, false), 'daemon');
    assert.equal(shapeOf('auto', false, true), 'daemon');
  });
  it('idle and drained decide alone', () => {
    assert.equal(shapeOf('idle', true, true), 'job');
    assert.equal(shapeOf('drained', false, false), 'daemon');
  });
});

describe('hasRecurringStart', () => {
  it('counts every long-lived start kind, webhooks too, and only on armed definitions', () => {
    for (const kind of ['loop', 'schedule', 'subscribe', 'signal', 'event', 'a2a', 'webhook'])
      assert.equal(hasRecurringStart([def(kind)]), true, kind);
    assert.equal(hasRecurringStart([def('once'), def('manual')]), false);
    assert.equal(hasRecurringStart([def('schedule', false)]), false);
  });
});

describe('nextIdleStep', () => {
  const base = { shape: 'job' as const, busy: false, recurring: false, idleSince: 1_000, graceMs: 5_000 };
  it('a daemon serves, and so does a busy job', () => {
    assert.deepEqual(nextIdleStep({ ...base, shape: 'daemon' }, 9_999), { type: 'serve' });
    assert.deepEqual(nextIdleStep({ ...base, busy: true, idleSince: null }, 9_999), { type: 'serve' });
  });
  it('an idle job without long-lived workflows exits at once', () => {
    assert.deepEqual(nextIdleStep(base, 1_000), { type: 'exit' });
  });
  it('an idle job with recurring starts exits only after idle_grace', () => {
    const view = { ...base, recurring: true };
    assert.deepEqual(nextIdleStep(view, 5_999), { type: 'wait', untilMs: 6_000 });
    assert.deepEqual(nextIdleStep(view, 6_000), { type: 'exit' });
  });
});

describe('exitCodeForRun', () => {
  it('maps run statuses and failure texts as the reference §2.10 does', () => {
    const run = (status: string, error: string | null = null) => exitCodeForRun({ status, error });
    assert.equal(run('completed'), 0);
    assert.equal(run('refused'), 5);
    assert.equal(run('stalled'), 3);
    assert.equal(run('cancelled'), 1);
    assert.equal(run('failed', 'step "a" failed: tokens exhausted'), 7);
    assert.equal(run('failed', 'over budget'), 7);
    assert.equal(run('failed', 'deadline exceeded'), 124);
    assert.equal(run('failed', 'intel unavailable'), 4);
    assert.equal(run('failed', 'step "x" failed: boom'), 1);
  });
  it('the last non-zero code wins', () => {
    assert.equal(lastNonZero([0, 5, 0, 3, 0]), 3);
    assert.equal(lastNonZero([]), 0);
  });
});

describe('printedOutput', () => {
  it('prints a string raw, null as nothing, other JSON pretty', () => {
    assert.equal(printedOutput('1'), '1');
    assert.equal(printedOutput(null), undefined);
    assert.equal(printedOutput({ a: 1 }), '{\n  "a": 1\n}');
  });
});
