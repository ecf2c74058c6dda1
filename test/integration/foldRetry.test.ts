// A fold commit the store refuses is retried until it sticks, and nobody hears the outcome before it does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DaemonError } from '../../src/errors.js';
import type { Store } from '../../src/store/store.js';
import { startRig } from './harness.js';
import { waitUntil, within } from './wait.js';

const OP = 'operator';

describe('fold commit retried', () => {
  it('a refused fold commit is retried; the outcome is heard only after the commit stuck', async () => {
    const attempts: Array<'refused' | 'committed'> = [];
    const failOnce = (store: Store): Store => ({
      ...store,
      inbox: {
        ...store.inbox,
        complete: async (id, fold) => {
          if (attempts.length === 0) {
            attempts.push('refused');
            throw new DaemonError('store_io', 'disk full', true);
          }
          const revisions = await store.inbox.complete(id, fold);
          attempts.push('committed');
          return revisions;
        },
      },
    });
    const rig = await startRig({ turns: [{ content: 'kept' }] }, {}, { wrapStore: failOnce });
    try {
      const { record } = await rig.sup.accept({ context_id: 'r', text: 'fold me', principal: OP });
      const outcome = await within(rig.sup.outcomeOf(record.id), 20_000, 'the outcome');
      assert.deepEqual(attempts, ['refused', 'committed'], 'premise: the first commit was refused');
      assert.equal(outcome.status, 'completed');
      assert.equal(outcome.reply, 'kept');
      assert.equal(rig.named('store.checkpoint.fail').length, 1);
      assert.equal((await rig.store.inbox.find(record.id))?.status, 'done');
      const [stored] = (await rig.store.conversations.load()).map((s) => s.conversation);
      const replies = (stored?.messages ?? []).filter((m) => m.role === 'assistant' && m.text === 'kept');
      assert.equal(replies.length, 1, 'the reply is stored once');
    } finally {
      await rig.close();
    }
  });
});

describe('fold commit refused for a while (disk full)', () => {
  it('retries on a backoff timer, not in a loop; readiness and new accepts say the store cannot commit', async () => {
    let failing = true;
    let attempts = 0;
    const refuseWhileFull = (store: Store): Store => ({
      ...store,
      inbox: {
        ...store.inbox,
        complete: async (id, fold) => {
          attempts++;
          if (failing) throw new DaemonError('store_io', 'store x: complete failed: disk full (SQLITE_FULL)', true);
          return store.inbox.complete(id, fold);
        },
      },
    });
    const rig = await startRig({ turns: [{ content: 'kept' }] }, {}, { wrapStore: refuseWhileFull });
    try {
      const { record } = await rig.sup.accept({ context_id: 'r', text: 'fold me', principal: OP });
      const outcome = rig.sup.outcomeOf(record.id);
      await waitUntil(() => attempts >= 1, 20_000, 'the first fold commit');
      assert.equal(rig.sup.ready, false, 'not ready while a fold cannot commit');
      await assert.rejects(rig.sup.accept({ context_id: 'r2', text: 'more', principal: OP }), (err: unknown) => {
        assert.ok(err instanceof DaemonError && err.code === 'store_unavailable' && err.retryable);
        assert.match(err.message, /the store cannot commit right now/);
        assert.doesNotMatch(err.message, /store x|SQLITE/, 'no store detail reaches a caller');
        return true;
      });
      await waitUntil(() => attempts >= 3, 20_000, 'three refused fold commits');
      failing = false;
      // Each refusal armed one backoff, doubling: counted from what was armed, not from how long a sleep lasted.
      const armed = rig.named('store.checkpoint.retry').map((e) => e.delay_ms);
      assert.deepEqual(armed.slice(0, 3), [250, 500, 1_000]);
      assert.ok(attempts <= armed.length + 1, `no attempt without an armed backoff: ${attempts} vs ${armed.length}`);
      // Nothing else happens: the timer alone brings the fold in.
      const done = await within(outcome, 20_000, 'the outcome after the disk recovered');
      assert.equal(done.status, 'completed');
      assert.equal(rig.sup.ready, true, 'ready again once the commit stuck');
      assert.equal((await rig.store.inbox.find(record.id))?.status, 'done');
    } finally {
      await rig.close();
    }
  });
});
