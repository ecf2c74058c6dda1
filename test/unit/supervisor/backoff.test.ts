// A spawn refused for lack of resources (issue 13 item 1): the job goes back to a waiting state with a growing
// backoff and is admitted again; it never folds FAILED for a transient cause.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spawnErrorCode, spawnRetryDelay, transientSpawnCode } from '../../../src/supervisor/backoff.js';
import { gateLine, isBusy, nextWaitWake, statusCounts } from '../../../src/supervisor/jobQueries.js';
import { type Job, type JobEvent, type JobStep, newJob, transition } from '../../../src/supervisor/jobTable.js';

const ok = (step: JobStep) => {
  if (step.refused) assert.fail(`refused: ${step.event} in ${step.state} (${step.reason})`);
  return step;
};
const drive = (job: Job, now: number, ...events: JobEvent[]): Job =>
  events.reduce((j, e) => ok(transition(j, e, now)).job, job);
const emfile: JobEvent = { type: 'spawn_failed', code: 'EMFILE', error: 'spawn /usr/bin/node EMFILE' };
const launched = (now: number): Job =>
  drive(
    newJob({ eventId: '01A', ctx: 'c1', principal: null }, 0),
    now,
    { type: 'prepared' },
    { type: 'gate_picked' },
    {
      type: 'budget_admitted',
    },
  );

describe('spawnRetryDelay', () => {
  it('doubles from 100 ms and stops at 5 s', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 100].map(spawnRetryDelay),
      [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000],
    );
  });

  it('calls only lack of resources transient', () => {
    for (const code of ['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM']) assert.equal(transientSpawnCode(code), true, code);
    for (const code of ['ENOENT', 'EACCES', 'unknown', null, undefined]) assert.equal(transientSpawnCode(code), false);
    assert.equal(spawnErrorCode(Object.assign(new Error('x'), { code: 'ENOMEM' })), 'ENOMEM');
    assert.equal(spawnErrorCode('not an error'), null);
  });
});

describe('a spawn refused for lack of resources', () => {
  it('waits out a growing backoff in spawn_wait, then is admitted again', () => {
    const first = ok(transition(launched(1_000), emfile, 1_000));
    assert.equal(first.job.state, 'spawn_wait');
    assert.deepEqual(first.effects, [{ kind: 'spawn_retry', attempt: 1, delayMs: 100, code: 'EMFILE' }]);
    assert.deepEqual(first.job.wait, { untilMs: 1_100, reason: 'spawn EMFILE' });
    const table = new Map([[first.job.eventId, first.job]]);
    assert.equal(isBusy(table, 'c1', 1_050), true, 'its conversation stays held: no later message overtakes it');
    assert.equal(nextWaitWake(table, 1_050, { paused: false, draining: false }), 1_100, 'a timer wakes the retry');
    assert.equal(statusCounts(table).queued, 1, 'it counts as pending work');
    assert.equal(transition(first.job, { type: 'gate_picked' }, 1_099).refused, true, 'not before its backoff');
    assert.deepEqual(gateLine(table, 1_100), [first.job]);
    const again = ok(transition(first.job, { type: 'gate_picked' }, 1_100));
    assert.equal(again.job.state, 'admitting');
    assert.deepEqual(again.effects, [{ kind: 'build_and_admit' }]);
    const second = drive(again.job, 1_100, { type: 'budget_admitted' }, emfile);
    assert.deepEqual(second.wait, { untilMs: 1_300, reason: 'spawn EMFILE' }, 'the second wait is twice as long');
    assert.equal(second.spawnAttempts, 2);
  });

  it('a worker reported gone before it ever started (the async EMFILE) waits the same way, freeing the worker', () => {
    const running = drive(launched(0), 0, { type: 'spawned', node: 3, turnId: 'turn-1' });
    const step = ok(transition(running, emfile, 0));
    assert.equal(step.job.state, 'spawn_wait');
    assert.equal(step.job.workerLive, false);
    assert.equal(step.job.turn, undefined);
  });

  it('premise: a worker gone with exit code -24 and no spawn classification folds FAILED', () => {
    // This is what happened before the fix: the async EMFILE arrived as an ordinary exit of the worker.
    const running = drive(launched(0), 0, { type: 'spawned', node: 3, turnId: 'turn-1' });
    const step = ok(transition(running, { type: 'worker_gone', code: -24, signal: null }, 0));
    assert.equal(step.job.state, 'folding');
    const fold = step.effects.find((e) => e.kind === 'fold');
    assert.deepEqual(fold && 'end' in fold ? fold.end : null, {
      status: 'failed',
      error: 'worker exited without a result (exit code -24)',
      kind: 'worker',
    });
  });

  it('a cancel asked while it spawned folds it as cancelled; a cancel or drain while it waits ends the wait', () => {
    const asked = drive(launched(0), 0, { type: 'cancel', reason: 'by operator' });
    const step = ok(transition(asked, emfile, 0));
    assert.equal(step.job.state, 'folding');
    assert.ok(step.effects.some((e) => e.kind === 'fold' && 'end' in e && e.end.status === 'cancelled'));
    const waiting = drive(launched(0), 0, emfile);
    assert.equal(ok(transition(waiting, { type: 'cancel', reason: 'x' }, 0)).job.state, 'folding');
    const drained = ok(transition(waiting, { type: 'drain_abandon' }, 0));
    assert.equal(drained.job.state, 'abandoned');
    assert.deepEqual(drained.effects, [{ kind: 'announce_abandoned' }]);
  });
});
