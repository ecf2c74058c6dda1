// The daemon with people and processes in the loop: CancelTask during a long MCP call takes the worker and its
// MCP server down; a question to a person survives a restart (asked again, or an early answer handed over);
// wake_on decides whether an A2A message starts a turn or is only noted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { TaskState } from '@a2a-js/sdk';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { artifactText, asTask, type Daemon, send, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';
import { alive, childrenOf } from './processes.js';

const EVERYTHING = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

async function storedNotes(dir: string, conversation: string): Promise<string[]> {
  const store = new SqliteStore(dir);
  try {
    const conv = (await store.conversations.load()).map((s) => s.conversation).find((c) => c.id === conversation);
    // The daily date note aside.
    return (conv?.messages ?? []).flatMap((m) =>
      m.role === 'note' && !m.text.startsWith('current date:') ? [m.text] : [],
    );
  } finally {
    await store.close();
  }
}

const listen = (url: string, extra = '') =>
  `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${url}\n${extra}`;

async function killed(daemon: Daemon): Promise<void> {
  const exited = new Promise((r) => daemon.child.on('exit', r));
  daemon.child.kill('SIGKILL');
  await within(exited, 10_000, 'the daemon dies');
}

describe('the A2A daemon with people and processes', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'all done' }],
      match: [
        { when_contains: 'take your time', content: 'late', delay_ms: 60_000 },
        {
          when_contains: 'long operation please',
          times: 1,
          tool_calls: [{ name: 'trigger-long-running-operation', arguments: { duration: 120, steps: 120 } }],
        },
        {
          when_contains: 'ask across a restart',
          times: 2,
          tool_calls: [{ name: 'ask_human', arguments: { question: 'Which colour?' } }],
        },
        {
          when_contains: 'answer early across a restart',
          times: 1,
          tool_calls: [{ name: 'ask_human', arguments: { question: 'Which size?' } }],
        },
        {
          when_contains: 'answer early across a restart',
          times: 1,
          delay_ms: 4_000,
          tool_calls: [{ name: 'ask_human', arguments: { question: 'Which size?' } }],
        },
      ],
    });
  });
  after(async () => model.close());

  it('CancelTask during a long MCP call: the worker and its MCP server process are gone; CANCELED stays', async () => {
    const dir = tempStateDir();
    const mcp = `mcp:\n  servers:\n    everything: {command: "${process.execPath}", args: ["${EVERYTHING}", "stdio"]}\n`;
    const daemon = await startDaemon(dir, listen(model.url, mcp));
    try {
      const client = await clientFor(daemon.url);
      const task = asTask(await client.sendMessage(send('long operation please', {}, true)));
      const calling = () =>
        daemon.events.some((e) => e.event === 'tool.call' && e.tool === 'trigger-long-running-operation');
      await waitUntil(calling, 30_000, 'the long MCP call starts');
      const workerPid = Number(daemon.events.find((e) => e.event === 'turn.spawn')?.worker_pid);
      const server = childrenOf(workerPid).find((p) => p.cmd.includes('server-everything'));
      assert.ok(server, 'premise: the worker runs its own MCP server process');
      assert.ok(alive(server.pid) && alive(workerPid), 'premise: both are alive mid-call');

      const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      // CANCELED comes from the cancelled turn's fold, not from a relabel before the worker ended: before,
      // CancelTask answered at once with "canceled by the caller" while the turn ran on.
      const reason = canceled.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''));
      assert.deepEqual(reason, ['canceled: the turn was stopped']);
      // Answered only once both are gone: before, the fold showed CANCELED while they were still stopping.
      assert.ok(!alive(workerPid) && !alive(server.pid), 'the worker and its MCP server are gone when CANCELED shows');
      await waitUntil(
        () => daemon.events.some((e) => e.event === 'turn.done' && e.comp === 'supervisor'),
        10_000,
        'the turn folds',
      );
      const later = await client.getTask({ tenant: '', id: task.id });
      assert.equal(later.status?.state, TaskState.TASK_STATE_CANCELED, 'the fold did not overwrite it');
    } finally {
      await daemon.stop();
    }
  });

  it('ask_human across a restart: the replayed turn asks again and the answer resumes it', async () => {
    const dir = tempStateDir();
    const first = await startDaemon(dir, listen(model.url));
    const client = await clientFor(first.url);
    const task = asTask(await client.sendMessage(send('ask across a restart', {}, true)));
    const asking = async (c: typeof client) =>
      (await c.getTask({ tenant: '', id: task.id })).status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
    await waitUntil(() => first.events.some((e) => e.state === 'input_required'), 20_000, 'the first ask');
    assert.ok(await asking(client));
    await killed(first);

    const second = await startDaemon(dir, listen(model.url));
    try {
      const again = await clientFor(second.url);
      assert.ok(await asking(again), 'the question is still pending after the restart');
      await waitUntil(() => second.events.some((e) => e.state === 'input_required'), 20_000, 'asked again');
      await again.sendMessage(send('blue', { taskId: task.id }, true));
      await waitUntil(
        () => second.events.some((e) => e.event === 'turn.done' && e.comp === 'supervisor'),
        20_000,
        'the turn resumes and ends',
      );
      const done = await again.getTask({ tenant: '', id: task.id });
      assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
      const last = JSON.stringify(model.requests.at(-1)?.body);
      assert.match(last, /blue/, 'the answer reached the model as the tool result');
    } finally {
      await second.stop();
    }
  });

  it('ask_human across a restart: an answer given before the replayed turn asks is handed to it', async () => {
    const dir = tempStateDir();
    const first = await startDaemon(dir, listen(model.url));
    const client = await clientFor(first.url);
    const task = asTask(await client.sendMessage(send('answer early across a restart', {}, true)));
    await waitUntil(() => first.events.some((e) => e.state === 'input_required'), 20_000, 'the first ask');
    await killed(first);

    const second = await startDaemon(dir, listen(model.url));
    try {
      const again = await clientFor(second.url);
      const answered = asTask(await again.sendMessage(send('large', { taskId: task.id }, true)));
      assert.equal(answered.status?.state, TaskState.TASK_STATE_WORKING);
      await waitUntil(
        () => second.events.some((e) => e.event === 'turn.done' && e.comp === 'supervisor'),
        30_000,
        'the replayed turn ends',
      );
      assert.equal(second.events.filter((e) => e.event === 'a2a.answer.replayed').length, 1);
      assert.ok(!second.events.some((e) => e.state === 'input_required'), 'the replayed turn never waited');
      const done = await again.getTask({ tenant: '', id: task.id });
      assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.match(JSON.stringify(model.requests.at(-1)?.body), /large/);
    } finally {
      await second.stop();
    }
  });

  it('wake_on without a2a_message: a message is noted, no turn runs; the default keeps a reply as a note', async () => {
    const quietDir = tempStateDir();
    const quiet = await startDaemon(quietDir, listen(model.url, 'agent:\n  wake_on: [human_reply]\n'));
    try {
      const client = await clientFor(quiet.url);
      const task = asTask(await client.sendMessage(send('for your records', { contextId: 'log' })));
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.match(artifactText(task), /^noted/);
      assert.ok(!quiet.events.some((e) => e.event === 'turn.spawn'), 'no turn ran');
    } finally {
      await quiet.stop();
    }
    assert.deepEqual(await storedNotes(quietDir, 'log'), [
      'message from operator (no turn: agent.wake_on leaves out a2a_message): for your records',
    ]);

    const dir = tempStateDir();
    const daemon = await startDaemon(dir, listen(model.url));
    let taskId = '';
    try {
      const client = await clientFor(daemon.url);
      const task = asTask(await client.sendMessage(send('take your time', { contextId: 'slow' }, true)));
      taskId = task.id;
      const reply = asTask(await client.sendMessage(send('use metric units', { taskId }, true)));
      assert.equal(reply.id, taskId);
      assert.equal(reply.status?.state, TaskState.TASK_STATE_WORKING);
      await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    } finally {
      await daemon.stop();
    }
    // The reply arrived while the turn ran: it joins the transcript after that turn's own messages.
    const notes = await storedNotes(dir, 'slow');
    assert.deepEqual(notes.at(-1), `human reply (task ${taskId}): use metric units`);
    assert.equal(notes.length, 2, notes.join(' | '));
  });
});
