// SendMessage survives a daemon that is SIGKILLed again and again: a client streams messages, retries every send
// it lost (and re-sends one it did get back) with the same messageId, and in the end each message has exactly one
// completed task and appears exactly once in its conversation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { within } from '../integration/wait.js';
import { asTask, type Daemon, killAndRestart, send, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

const MESSAGES = 48;
/** The sends during which the daemon is SIGKILLed (five kills). */
const KILL_AT = new Set([5, 14, 23, 32, 41]);

interface Run {
  dir: string;
  yaml: string;
  daemon: Daemon;
  client: Client;
  kills: number;
  /** Events of the daemons killed so far. */
  earlier: Array<Record<string, unknown>>;
}

async function replaceDaemon(run: Run): Promise<void> {
  const killed = run.daemon;
  run.daemon = await killAndRestart(killed, run.dir, run.yaml);
  run.kills++;
  run.earlier.push(...killed.events);
  run.client = await clientFor(run.daemon.url);
}

/** Sends message `i` until a daemon answers; at a kill point the daemon dies while the send is in flight. */
async function deliver(run: Run, i: number): Promise<string> {
  const params = send(`message ${i}`, { messageId: `crash-${i}`, contextId: `ctx-${i % 4}` }, true);
  let first: string | null = null;
  for (let attempt = 1; attempt <= 8; attempt++) {
    const sending = within(run.client.sendMessage(params), 10_000, `send ${i}`).then(
      (r) => asTask(r).id,
      () => null,
    );
    if (attempt === 1 && KILL_AT.has(i)) {
      // Anywhere from before the accept to after its commit; the first kill waits for the answer, so at least
      // one retry meets a message the daemon had already accepted.
      await (run.kills === 0 ? sending : delay(i % 7));
      await replaceDaemon(run);
      first = await sending;
      continue; // lost or not, the client cannot know: it sends again with the same id
    }
    const id = await sending;
    if (id !== null) {
      if (first !== null) assert.equal(id, first, `message ${i}: the retry names the task the first send got`);
      return id;
    }
    await delay(100);
  }
  throw new Error(`message ${i} was never accepted`);
}

describe('SendMessage across SIGKILLs', { timeout: 240_000 }, () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'ok', delay_ms: 15 }] });
  });
  after(async () => model.close());

  it('every message ends with exactly one completed task and once in its conversation', async () => {
    const dir = tempStateDir();
    const yaml = `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`;
    const daemon = await startDaemon(dir, yaml);
    const run: Run = { dir, yaml, daemon, client: await clientFor(daemon.url), kills: 0, earlier: [] };
    const taskIds: string[] = [];
    try {
      for (let i = 0; i < MESSAGES; i++) taskIds.push(await deliver(run, i));
      assert.equal(run.kills, KILL_AT.size, 'premise: the daemon was killed during the stream');
      const deadline = Date.now() + 60_000;
      for (const id of taskIds) {
        while ((await run.client.getTask({ tenant: '', id })).status?.state !== TaskState.TASK_STATE_COMPLETED) {
          if (Date.now() > deadline) throw new Error(`task ${id} did not complete within 60 s`);
          await delay(50);
        }
      }
    } finally {
      assert.equal(await run.daemon.stop(), 0);
    }
    const events = [...run.earlier, ...run.daemon.events];
    // A retry finds its accepted message before the inbox is asked (`a2a.task` replayed), or, racing the first
    // send's commit, at the inbox (`inbox.duplicate`).
    const duplicates = events.filter(
      (e) => e.event === 'inbox.duplicate' || (e.event === 'a2a.task' && e.replayed === true),
    ).length;
    assert.ok(duplicates >= 1, `premise: a retry met a message already accepted (${duplicates} did)`);
    const store = new SqliteStore(dir);
    try {
      const conversations = (await store.conversations.load()).map((s) => s.conversation);
      const tasks = await store.tasks.list({ principal: null, limit: 10 * MESSAGES });
      assert.equal(tasks.length, MESSAGES, 'one task per message, none doubled');
      for (let i = 0; i < MESSAGES; i++) {
        const text = `message ${i}`;
        const conv = conversations.find((c) => c.id === `ctx-${i % 4}`);
        const copies = (conv?.messages ?? []).filter((m) => m.role === 'user' && m.text === text).length;
        assert.equal(copies, 1, `${text} appears once in its conversation`);
        const task = tasks.find((t) => t.id === taskIds[i]);
        assert.equal(task?.state, 'completed', `${text} has a completed task`);
        const event = await store.inbox.find(task?.inbox_event ?? '');
        assert.equal(event?.payload.text, text);
      }
      for (const conv of conversations) {
        const users = conv.messages.filter((m) => m.role === 'user').length;
        const replies = conv.messages.filter((m) => m.role === 'assistant').length;
        assert.equal(replies, users, `${conv.id}: one reply per message, none doubled by a replay`);
      }
    } finally {
      await store.close();
    }
  });
});
