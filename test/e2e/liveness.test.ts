// Issue 12's acceptance for liveness, against the built daemon over A2A: a worker stopped with SIGSTOP mid-turn
// has its task FAILED within 30 s, `child.unhealthy` is logged, and the conversation's next message completes.
// The case runs on the watchdog's default timeouts (pong 10 s); the premise runs with them raised.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { artifactText, asTask, type Daemon, send, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

/** The daemon's config; without `pong` and `progress` the watchdog runs on its defaults (10 s and 120 s). */
const config = (url: string, pong?: string, progress?: string): string =>
  `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${url}\n` +
  (pong && progress ? `lifecycle:\n  pong_timeout: ${pong}\n  progress_timeout: ${progress}\n` : '');

/** Sends a message whose turn waits in a model call, and stops its worker there with SIGSTOP. */
async function stopMidTurn(
  daemon: Daemon,
  client: Client,
  model: ScriptedModel,
  text: string,
): Promise<{ task: Task; pid: number }> {
  const asked = model.requests.length;
  const task = asTask(await client.sendMessage(send(text, { contextId: 'c1' }, true)));
  await waitUntil(() => model.requests.length > asked, 20_000, 'the turn calls the model');
  const pid = Number(daemon.events.find((e) => e.event === 'turn.spawn')?.worker_pid);
  assert.ok(pid > 0, 'premise: the turn has a worker');
  process.kill(pid, 'SIGSTOP');
  return { task, pid };
}

async function stateOf(client: Client, id: string): Promise<TaskState | undefined> {
  return (await client.getTask({ tenant: '', id })).status?.state;
}

describe('liveness over A2A (the built daemon)', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'second answer' }],
      // Once each: the conversation's next turn sends the same text again, in its history.
      match: [
        { when_contains: 'hang here', content: 'never', delay_ms: 120_000, times: 1 },
        { when_contains: 'hold here', content: 'never', delay_ms: 120_000, times: 1 },
      ],
    });
  });
  after(async () => model.close());

  it('a worker stopped mid-turn: its task is FAILED within 30 s, child.unhealthy, the next message completes', async () => {
    const daemon = await startDaemon(tempStateDir(), config(model.url));
    try {
      const client = await clientFor(daemon.url);
      const { task, pid } = await stopMidTurn(daemon, client, model, 'hang here');
      const stoppedAt = Date.now();
      let state: TaskState | undefined;
      const deadline = stoppedAt + 30_000;
      while (Date.now() < deadline) {
        state = await stateOf(client, task.id);
        if (state === TaskState.TASK_STATE_FAILED) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(state, TaskState.TASK_STATE_FAILED, 'the task failed within 30 s');
      assert.ok(Date.now() - stoppedAt < 30_000);
      const report = daemon.events.find((e) => e.event === 'child.unhealthy' && e.worker_pid === pid);
      assert.equal(report?.health, 'stuck');
      assert.equal(report?.kind, 'turn');
      const next = asTask(await within(client.sendMessage(send('then this', { contextId: 'c1' })), 20_000, 'next'));
      assert.equal(next.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(next), 'second answer');
    } finally {
      await daemon.stop();
    }
  });

  it('premise: with the watchdog’s timeouts raised, the stopped worker holds its task far past them', async () => {
    const daemon = await startDaemon(tempStateDir(), config(model.url, '1h', '1h'));
    let pid = 0;
    try {
      const client = await clientFor(daemon.url);
      const stopped = await stopMidTurn(daemon, client, model, 'hold here');
      pid = stopped.pid;
      await new Promise((r) => setTimeout(r, 6_000)); // three times the pong timeout of the case above
      assert.equal(await stateOf(client, stopped.task.id), TaskState.TASK_STATE_WORKING);
      assert.equal(daemon.events.filter((e) => e.event === 'child.unhealthy').length, 0);
    } finally {
      if (pid > 0) process.kill(pid, 'SIGKILL');
      await daemon.stop();
    }
  });
});
