// A fold commit the store refuses is retried until it sticks, and nobody hears the outcome before it does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DaemonError } from '../../src/errors.js';
import type { Store } from '../../src/store/store.js';
import { startRig } from './harness.js';
import { within } from './wait.js';

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
