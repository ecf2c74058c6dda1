// SendMessage is idempotent per (caller, messageId): a retry gets the first send's task back, no second event
// enters the inbox, no second copy of the message enters the conversation, and no second turn runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import type { Msg } from '../../../src/protocol/messages.js';
import { startRig } from '../harness.js';
import { within } from '../wait.js';

const ALICE: Principal = { id: 'user:alice', role: 'user', grants: [] };
const BOB: Principal = { id: 'user:bob', role: 'user', grants: [] };

const userTexts = (messages: readonly Msg[] | undefined, text: string) =>
  (messages ?? []).filter((m) => m.role === 'user' && m.text === text).length;

describe('SendMessage idempotency', () => {
  it('a retry with the same messageId gets the same task; the message is run and stored once', async () => {
    const rig = await startRig({ turns: [{ content: 'done once' }] }, {}, { tasks: true });
    try {
      const backend = rig.backend;
      assert.ok(backend);
      const req = { text: 'count me once', contextId: 'c', messageId: 'msg-1' };
      const first = await backend.send(ALICE, req);
      const retry = await backend.send(ALICE, req);
      assert.equal(retry.id, first.id, 'the retry answers with the first task');
      const settled = await within(backend.settled(ALICE, first.id, new AbortController().signal), 20_000, 'done');
      assert.equal(settled?.state, 'completed');
      const late = await backend.send(ALICE, req);
      assert.equal(late.id, first.id, 'a retry after the turn ran gets the finished task');
      assert.equal(late.state, 'completed');
      await within(rig.sup.whenIdle(), 20_000, 'idle');
      assert.equal(userTexts(rig.sup.conversation('user:alice/c')?.messages, 'count me once'), 1);
      assert.equal(rig.named('turn.spawn').length, 1, 'one turn');
      assert.equal(rig.named('inbox.accepted').length, 1, 'one inbox event');
      // Both retries are found before the inbox is asked (and before any quota): the original task, replayed.
      assert.equal(rig.named('a2a.task').filter((e) => e.replayed === true).length, 2);
    } finally {
      await rig.close();
    }
  });

  it("scopes the id to the caller: another principal's identical messageId is a different message", async () => {
    const rig = await startRig({ turns: [{ content: 'ok' }] }, {}, { tasks: true });
    try {
      const backend = rig.backend;
      assert.ok(backend);
      const alice = await backend.send(ALICE, { text: 'same id', contextId: 'c', messageId: 'shared' });
      const bob = await backend.send(BOB, { text: 'same id', contextId: 'c', messageId: 'shared' });
      assert.notEqual(alice.id, bob.id);
      assert.equal(rig.named('inbox.accepted').length, 2);
      // The premise: without a messageId, two sends are two messages (the key is what makes a retry safe).
      const a = await backend.send(ALICE, { text: 'no id', contextId: 'c' });
      const b = await backend.send(ALICE, { text: 'no id', contextId: 'c' });
      assert.notEqual(a.id, b.id);
      await within(rig.sup.whenIdle(), 20_000, 'idle');
    } finally {
      await rig.close();
    }
  });
});
