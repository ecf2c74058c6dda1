// A turn's reply reaches the store only with its inbox-done (one transaction): a checkpoint that runs while the fold
// is on its way (the task backend looks its task up first) writes the conversation without the fold's messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../../src/store/store.js';
import { startRig } from './harness.js';
import { within } from './wait.js';

const OP = 'operator';

describe('fold order', () => {
  it('no conversation write carries a reply before the fold that commits it with its inbox-done', async () => {
    const writes: Array<{ op: 'conversation' | 'fold'; replies: number }> = [];
    const replies = (c: { messages: Array<{ role: string; text?: string }> }) =>
      c.messages.filter((m) => m.role === 'assistant' && m.text === 'the reply').length;
    const probe = (store: Store): Store => ({
      ...store,
      conversations: {
        ...store.conversations,
        commit: (conv, expected) => {
          writes.push({ op: 'conversation', replies: replies(conv) });
          return store.conversations.commit(conv, expected);
        },
      },
      inbox: {
        ...store.inbox,
        complete: (id, fold) => {
          writes.push({ op: 'fold', replies: fold.conversations.reduce((n, c) => n + replies(c.conversation), 0) });
          return store.inbox.complete(id, fold);
        },
      },
    });
    const rig = await startRig({ turns: [{ content: 'the reply' }] }, {}, { tasks: true, wrapStore: probe });
    try {
      const { record } = await rig.sup.accept({ context_id: 'c', text: 'hello', principal: OP });
      const outcome = await within(rig.sup.outcomeOf(record.id), 20_000, 'the outcome');
      assert.equal(outcome.reply, 'the reply');
      await within(rig.sup.whenIdle(), 10_000, 'idle');
      const fold = writes.findIndex((w) => w.op === 'fold');
      assert.ok(fold >= 0, 'the fold committed');
      assert.equal(writes[fold]?.replies, 1, 'the fold carries its reply');
      const early = writes.slice(0, fold).filter((w) => w.replies > 0);
      assert.deepEqual(early, [], 'no write before the fold carried the reply');
    } finally {
      await rig.close();
    }
  });
});
