// A conversation created without an A2A message is held to its owner's `conversations` quota too (a side task, an
// accept into a conversation that does not exist yet, as message.send {to: "new"} makes), and a side task's link
// survives eviction and a restart: `side.promote` loads it. A real supervisor, SQLite store and worker processes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QuotaExceeded } from '../../src/budget/quotas.js';
import { startRig } from './harness.js';
import { within } from './wait.js';

const YAML = `a2a:
  principals:
    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}, quotas: {conversations: 1}}
    - {id: bob, role: user, match: {bearer: "{{secret:BOB_TOKEN}}"}}
`;
const ENV = { ALICE_TOKEN: 'alice-token-1234', BOB_TOKEN: 'bob-token-5678ab' };

const caller = (conversation: string, principal: string) => ({
  conversation,
  principal,
  turnId: 't',
  depth: 0,
  kind: 'conversation' as const,
});

describe('conversations quota on every create path', () => {
  it('refuses a side task and an accept into a new conversation past the quota; a principal without one is free', async () => {
    const rig = await startRig({ turns: [{ content: 'ok' }] }, ENV, { yaml: YAML });
    try {
      for (const principal of ['user:alice', 'user:bob']) {
        const { record } = await rig.sup.accept({ context_id: `${principal}/c1`, text: 'hi', principal });
        assert.equal((await within(rig.sup.outcomeOf(record.id), 30_000, principal)).status, 'completed');
      }
      // Premise of each refusal: bob (no quotas) does the same and gets it.
      assert.equal(typeof rig.sup.steering.openSide(caller('user:bob/c1', 'user:bob')), 'object');
      const side = rig.sup.steering.openSide(caller('user:alice/c1', 'user:alice'));
      assert.match(String(side), /^refused: quota conversations exceeded for principal user:alice: limit 1 /);

      await rig.sup.accept({ context_id: 'conv-bob', text: 'to a new one', principal: 'user:bob' });
      await assert.rejects(
        rig.sup.accept({ context_id: 'conv-alice', text: 'to a new one', principal: 'user:alice' }),
        (err: unknown) => err instanceof QuotaExceeded && err.code === 'quota_exceeded' && !err.retryable,
      );
      assert.equal(rig.sup.conversation('conv-alice'), undefined, 'nothing of the refused one exists');
      // Her own conversation still takes messages.
      const again = await rig.sup.accept({ context_id: 'user:alice/c1', text: 'more', principal: 'user:alice' });
      assert.equal((await within(rig.sup.outcomeOf(again.record.id), 30_000, 'again')).status, 'completed');
    } finally {
      await rig.close();
    }
  });

  it('side.promote finds a side task that is no longer in memory (after a restart)', async () => {
    const first = await startRig({ turns: [{ content: 'ok' }] });
    const parent = caller('parent', 'user:alice');
    let side = '';
    try {
      const { record } = await first.sup.accept({ context_id: 'parent', text: 'hi', principal: 'user:alice' });
      await within(first.sup.outcomeOf(record.id), 30_000, 'parent turn');
      const opened = first.sup.steering.openSide(parent);
      assert.ok(typeof opened === 'object', String(opened));
      side = opened.conversation;
      await within(first.sup.whenIdle(), 30_000, 'idle');
    } finally {
      await first.close();
    }
    const second = await startRig({ turns: [{ content: 'ok' }] }, {}, { dir: first.dir });
    try {
      assert.equal(second.sup.conversation(side), undefined, 'premise: the side task is not in memory');
      assert.equal(await second.sup.steering.sidePromote(parent, side), null);
      assert.equal(second.sup.conversation(side)?.controls?.side_of, null, 'promoted');
    } finally {
      await second.close();
    }
  });
});
