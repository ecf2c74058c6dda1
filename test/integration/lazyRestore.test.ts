// A restart loads only what pending work needs: over a real SQLite file with many conversations, the restore reads
// every conversation's head but loads only those with pending inbox events and those with an active goal; the
// rest come back from the store on first use, identical, and take new turns on top of their stored revision.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Conversation } from '../../src/domain/conversation.js';
import type { Goal } from '../../src/domain/goal.js';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { inboxEvent } from '../../src/supervisor/supervisorOptions.js';
import { startRig } from './harness.js';
import { within } from './wait.js';

const COUNT = 300;
const ids = Array.from({ length: COUNT }, (_, i) => `c-${i}`);

function stored(id: string): Conversation {
  return {
    id,
    kind: 'conversation',
    version: 1,
    summary: null,
    messages: [{ role: 'user', text: `first words of ${id}`, ts: 1 }],
    plan: null,
    principal: 'operator',
    turns: 1,
    created: 1,
    updated: 1,
  };
}

/** The store a long uptime left: COUNT conversations, two messages still pending, one goal active. */
async function seed(dir: string): Promise<void> {
  const store = new SqliteStore(dir);
  const goal = { objective: 'keep going', status: 'active', created: 1 } as unknown as Goal;
  for (const id of ids) {
    const conv = stored(id);
    // Plan mode holds the goal at idle: it is pending work without a continuation running here.
    if (id === 'c-42') conv.controls = { mode: 'plan', goal, side_of: null, proposal: null };
    await store.conversations.commit(conv, 0);
  }
  for (const ctx of ['c-7', 'c-250']) {
    await store.inbox.accept(
      inboxEvent({ context_id: ctx, text: `pending for ${ctx}`, principal: 'operator' }, 2, 'execute'),
    );
  }
  await store.close();
}

describe('restore on demand', () => {
  it('loads only the conversations of pending events and active goals; any other loads on first use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-lazy-'));
    await seed(dir);
    const rig = await startRig({ turns: [{ content: 'done' }] }, {}, { dir });
    try {
      // Before the fix the restore loaded all COUNT conversations and every message they held: c-100 was in memory.
      assert.equal(rig.sup.conversation('c-100'), undefined, 'a conversation without pending work stays on disk');
      const loaded = rig.named('store.conversation.loaded').map((e) => e['ctx']);
      assert.deepEqual(loaded.sort(), ['c-250', 'c-42', 'c-7']);
      assert.equal(rig.sup.conversation('c-42')?.controls?.goal?.status, 'active');
      assert.equal(rig.named('restore.done')[0]?.['conversations'], COUNT, 'every conversation is still known');
      await within(rig.sup.whenIdle(), 20_000, 'the pending messages ran');
      assert.equal(rig.named('turn.done').length + rig.named('turn.failed').length, 2);

      // First use of another conversation: it loads, identical to what was stored, and takes a turn on top.
      await rig.sup.intake.load('c-100');
      assert.deepEqual(rig.sup.conversation('c-100'), stored('c-100'));
      const { record } = await rig.sup.accept({ context_id: 'c-99', text: 'back again', principal: 'operator' });
      const outcome = await within(rig.sup.outcomeOf(record.id), 20_000, 'the turn on a reloaded conversation');
      assert.equal(outcome.status, 'completed');
      const messages = (await rig.store.conversations.get('c-99'))?.conversation.messages ?? [];
      assert.deepEqual(messages[0], stored('c-99').messages[0], 'the stored message stayed first');
      assert.equal(messages.filter((m) => m.role === 'user' && m.text === 'back again').length, 1);
      assert.equal(messages.at(-1)?.role, 'assistant', 'the new turn appended after it');
      assert.deepEqual(rig.named('store.checkpoint.fail'), []);
    } finally {
      await rig.close();
    }
  });
});
