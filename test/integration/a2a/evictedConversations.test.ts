// A2A callers reach conversations the cache evicted: a steering command, a message with `agentd/mode` and a plain
// message each load the conversation back first, and work on it as if it had never left memory (without the load,
// steering refuses: "conversation … is stored but not in memory").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import { startRig } from '../harness.js';
import { waitUntil, within } from '../wait.js';

const ALICE: Principal = { id: 'user:alice', role: 'user', grants: [] };
const CACHE_OF_ONE = 'store:\n  conversation_cache:\n    entries: 1\n';

describe('A2A on evicted conversations', () => {
  it('a command, a moded message and a message each load the evicted conversation back', async () => {
    const rig = await startRig({ turns: [{ content: 'ok' }] }, {}, { tasks: true, yaml: CACHE_OF_ONE });
    try {
      const backend = rig.backend;
      assert.ok(backend);
      const run = async (contextId: string, text: string, metadata?: Record<string, unknown>) => {
        const task = await backend.send(ALICE, { text, contextId, ...(metadata ? { metadata } : {}) });
        const done = await within(backend.settled(ALICE, task.id, new AbortController().signal), 20_000, text);
        assert.equal(done?.state, 'completed');
        await within(rig.sup.whenIdle(), 20_000, 'idle');
      };
      // Probed without touching it: `sup.conversation()` marks it used, which holds its eviction off until the next
      // step (with reused workers no worker exit brings one after the fold).
      const book = (rig.sup as unknown as { conversations: { isResident(id: string): boolean } }).conversations;
      const evicted = (ctx: string) => () => !book.isResident(ctx);
      await run('c1', 'first words');
      await run('c2', 'elsewhere');
      await waitUntil(evicted('user:alice/c1'), 10_000, 'c1 evicted (premise: steering it needs a load)');

      const mode = { op: 'mode', args: { mode: 'plan' } };
      await backend.send(ALICE, { text: '', contextId: 'c1', command: mode });
      assert.equal(rig.sup.conversation('user:alice/c1')?.controls?.mode, 'plan', 'the command steered c1');
      assert.deepEqual(rig.named('store.checkpoint.fail'), [], 'on its stored revision');

      await run('c2', 'elsewhere again');
      await waitUntil(evicted('user:alice/c1'), 10_000, 'c1 evicted again');
      await run('c1', 'back in execute mode', { 'agentd/mode': 'execute' });
      const c1 = (await rig.store.conversations.get('user:alice/c1'))?.conversation;
      assert.equal(c1?.controls?.mode, 'execute');
      const said = (c1?.messages ?? []).filter((m) => m.role === 'user').map((m) => m.text);
      assert.deepEqual(said, ['first words', 'back in execute mode'], 'one transcript, nothing forked or lost');
      assert.deepEqual(rig.named('store.checkpoint.fail'), []);
    } finally {
      await rig.close();
    }
  });
});
