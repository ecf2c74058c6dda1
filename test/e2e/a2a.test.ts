// The daemon through the official A2A client: a message becomes a task, ownership between principals, cancel,
// a question to a person, and a task that survives a restart.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import Database from 'better-sqlite3';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { bearerFetch, clientFor } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { artifactText, asTask, send, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

/** Messages still pending in a stopped daemon's store. */
function pendingMessages(dir: string): number {
  const db = new Database(join(dir, 'agentd.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM inbox WHERE status = 'pending'`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** How many stored transcript messages carry `text`. */
function repliesStored(dir: string, text: string): number {
  const db = new Database(join(dir, 'agentd.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT json FROM messages').all() as { json: string }[];
    return rows.filter((r) => r.json.includes(text)).length;
  } finally {
    db.close();
  }
}

/** Resolves once the task is COMPLETED (the caller bounds the wait). */
async function completed(client: Client, id: string): Promise<void> {
  while ((await client.getTask({ tenant: '', id })).status?.state !== TaskState.TASK_STATE_COMPLETED) {
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the A2A daemon', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'hello from the daemon' }],
      match: [
        {
          when_contains: 'fix the thing',
          content: { intent: 'clarify', needs_plan: false, risk: 'low', clarifications: ['Which thing?'] },
        },
        { when_contains: 'take your time', content: 'late', delay_ms: 60_000 },
        {
          when_contains: 'ask me first',
          times: 1,
          tool_calls: [{ name: 'ask_human', arguments: { question: 'Proceed?' } }],
        },
      ],
    });
  });
  after(async () => model.close());

  it('a message becomes a COMPLETED task whose artifact is the reply; GetTask returns it after a restart', async () => {
    const dir = tempStateDir();
    const yaml = `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`;
    const first = await startDaemon(dir, yaml);
    const client = await clientFor(first.url);
    const task = asTask(await within(client.sendMessage(send('hi there')), 20_000, 'blocking send'));
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(artifactText(task), 'hello from the daemon');
    assert.equal(await first.stop(), 0);
    const second = await startDaemon(dir, yaml);
    try {
      const again = await (await clientFor(second.url)).getTask({ tenant: '', id: task.id });
      assert.equal(again.status?.state, TaskState.TASK_STATE_COMPLETED);
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });

  it('a clarify verdict completes the task with the questions as its artifact, and no turn runs', async () => {
    const dir = tempStateDir();
    const yaml = `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`;
    const daemon = await startDaemon(dir, yaml);
    try {
      const client = await clientFor(daemon.url);
      const task = asTask(await within(client.sendMessage(send('please fix the thing')), 20_000, 'clarify'));
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(task), 'Before I act, please clarify:\n- Which thing?');
      assert.equal(daemon.events.filter((e) => e.event === 'turn.spawn').length, 0);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });

  it('principals: B cannot read or cancel A’s task, and B’s context id never reaches A’s conversation', async () => {
    const dir = tempStateDir();
    const yaml =
      `a2a:\n  listen: http://127.0.0.1:0\n  principals:\n` +
      '    - {id: alice, role: user, match: {bearer: "{{secret:A_TOKEN}}"}}\n' +
      '    - {id: bob, role: user, match: {bearer: "{{secret:B_TOKEN}}"}}\n' +
      `intelligence:\n  endpoints: ${model.url}\n`;
    const daemon = await startDaemon(dir, yaml, { A_TOKEN: 'alice-secret-token', B_TOKEN: 'bob-secret-token' });
    try {
      const alice: Client = await clientFor(daemon.url, bearerFetch('alice-secret-token'));
      const bob: Client = await clientFor(daemon.url, bearerFetch('bob-secret-token'));
      const mine = asTask(
        await within(alice.sendMessage(send('alice speaks', { contextId: 'shared' })), 20_000, 'alice'),
      );
      assert.equal(mine.status?.state, TaskState.TASK_STATE_COMPLETED);
      await assert.rejects(bob.getTask({ tenant: '', id: mine.id }), /not found/i);
      await assert.rejects(bob.cancelTask({ tenant: '', id: mine.id, metadata: undefined }), /not found/i);
      const theirs = asTask(await within(bob.sendMessage(send('bob speaks', { contextId: 'shared' })), 20_000, 'bob'));
      assert.equal(theirs.status?.state, TaskState.TASK_STATE_COMPLETED);
      const spawned = daemon.events.filter((e) => e.event === 'turn.spawn').map((e) => e.ctx);
      assert.deepEqual(spawned, ['user:alice/shared', 'user:bob/shared']);
      assert.ok(!JSON.stringify(daemon.events).includes('alice-secret-token'));
    } finally {
      await daemon.stop();
    }
  });

  it('CancelTask during a long turn: the worker is gone and the task stays CANCELED', async () => {
    const dir = tempStateDir();
    const daemon = await startDaemon(
      dir,
      `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`,
    );
    try {
      const client = await clientFor(daemon.url);
      const task = asTask(await client.sendMessage(send('take your time', {}, true)));
      await waitUntil(() => daemon.events.some((e) => e.event === 'turn.spawn'), 20_000, 'the turn starts');
      const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      await waitUntil(() => daemon.events.some((e) => e.event === 'child.exit'), 10_000, 'the worker exits');
      const later = await client.getTask({ tenant: '', id: task.id });
      assert.equal(later.status?.state, TaskState.TASK_STATE_CANCELED, 'the fold did not overwrite it');
    } finally {
      await daemon.stop();
    }
  });

  it('ask_human over A2A: the task goes INPUT_REQUIRED and a reply with its taskId resumes the turn', async () => {
    const dir = tempStateDir();
    const daemon = await startDaemon(
      dir,
      `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`,
    );
    try {
      const client = await clientFor(daemon.url);
      const task = asTask(await within(client.sendMessage(send('ask me first')), 20_000, 'until input is needed'));
      assert.equal(task.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      await client.sendMessage(send('yes', { taskId: task.id }, true));
      await waitUntil(
        () => daemon.events.some((e) => e.event === 'turn.done' && e.comp === 'supervisor'),
        20_000,
        'done',
      );
      const done = await client.getTask({ tenant: '', id: task.id });
      assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
      const reply = model.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
      assert.match(JSON.stringify(reply.messages.filter((m) => m.role === 'tool')), /yes/);
    } finally {
      await daemon.stop();
    }
  });

  it('SIGKILL after SendMessage was acknowledged: on restart the turn runs once and the same task completes', async () => {
    const dir = tempStateDir();
    const yaml = `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`;
    const first = await startDaemon(dir, yaml);
    const client = await clientFor(first.url);
    const task = asTask(await client.sendMessage(send('crash soon', {}, true)));
    const exited = new Promise((r) => first.child.on('exit', r));
    first.child.kill('SIGKILL');
    await within(exited, 10_000, 'the daemon dies');
    // What the first life made durable decides what the second owes: the supervisor logs turn.done before its
    // fold commits, so a kill between the two leaves the message pending and its turn runs again (the reply is
    // stored once either way). The store says which case this run hit.
    const committed = pendingMessages(dir) === 0;
    const second = await startDaemon(dir, yaml);
    try {
      const again = await clientFor(second.url);
      await within(completed(again, task.id), 20_000, 'the task completes');
      const spawns = second.events.filter((e) => e.event === 'turn.spawn').length;
      assert.equal(spawns, committed ? 0 : 1, 'a committed turn never runs again; a pending one runs once');
    } finally {
      await second.stop();
    }
    // Read once the daemon is gone: it holds its store exclusively while it runs.
    assert.equal(repliesStored(dir, 'hello from the daemon'), 1, 'the reply is stored exactly once');
  });
});
