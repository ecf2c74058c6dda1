// CommitHealth (issue 13 item 8): a refused commit marks the store failing until that commit sticks; meanwhile
// accepts are refused with one retryable error that carries no store detail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DaemonError } from '../../../src/errors.js';
import { ACCEPT_PROBE_MS, CommitHealth, STORE_UNAVAILABLE } from '../../../src/store/commitHealth.js';

const full = () => new DaemonError('store_io', 'store /x/agentd.db: commit failed: disk is full (SQLITE_FULL)', true);
const unavailable = (err: unknown) =>
  err instanceof DaemonError && err.code === 'store_unavailable' && err.retryable && err.message === STORE_UNAVAILABLE;

describe('CommitHealth', () => {
  it('is failing from a refused fold until that fold commits', () => {
    const health = new CommitHealth();
    assert.equal(health.failing, false);
    health.failed('01A');
    health.failed('01B');
    health.succeeded('01A');
    assert.equal(health.failing, true, 'one fold still refused');
    health.succeeded('01B');
    assert.equal(health.failing, false);
  });

  it('refuses an accept at once while a fold fails, without calling the store', async () => {
    const health = new CommitHealth();
    health.failed('01A');
    let called = false;
    await assert.rejects(
      health.accept('accept', async () => {
        called = true;
      }),
      unavailable,
    );
    assert.equal(called, false);
  });

  it('turns a store failure of the accept itself into the retryable error, logs it, and clears on success', async () => {
    const logged: string[] = [];
    const health = new CommitHealth((key, err) => logged.push(`${key}: ${err}`));
    await assert.rejects(
      health.accept('accept', () => Promise.reject(full())),
      unavailable,
    );
    assert.equal(health.failing, true);
    assert.deepEqual(logged, ['accept: store /x/agentd.db: commit failed: disk is full (SQLITE_FULL)']);
    assert.equal(
      await health.accept('accept', async () => 'ok'),
      'ok',
      'the next accept still tries (it is the probe)',
    );
    assert.equal(health.failing, false);
  });

  it('lets other errors through as they are', async () => {
    const health = new CommitHealth();
    const conflict = new DaemonError('store_conflict', 'revision 2 expected');
    await assert.rejects(
      health.accept('accept', () => Promise.reject(conflict)),
      (err) => err === conflict,
    );
    assert.equal(health.failing, false);
  });

  it('a fold refused for a constraint or a bug is no outage: only I/O-class refusals count', () => {
    // Premise: every fold error marked the store failing, so one poison fold made the instance not ready.
    const health = new CommitHealth();
    health.failed('01A', new DaemonError('internal', 'store x: fold broke a constraint'));
    health.failed('01B', new Error('a bug'));
    assert.equal(health.failing, false);
    health.failed('01C', full());
    assert.equal(health.failing, true);
  });

  it("an accept's refusal clears on any commit that sticks, or lapses after ACCEPT_PROBE_MS", async () => {
    // Premise: it cleared only on a later successful accept, which never comes while /readyz routes traffic away.
    let t = 0;
    const health = new CommitHealth(
      () => {},
      () => t,
    );
    await assert.rejects(
      health.accept('accept', () => Promise.reject(full())),
      unavailable,
    );
    assert.equal(health.failing, true);
    health.succeeded('01F');
    assert.equal(health.failing, false, 'a fold committed: the store takes commits');
    await assert.rejects(
      health.accept('accept', () => Promise.reject(full())),
      unavailable,
    );
    t += ACCEPT_PROBE_MS - 1;
    assert.equal(health.failing, true);
    t += 1;
    assert.equal(health.failing, false, 'ready again: the next accept probes the store');
  });
});
