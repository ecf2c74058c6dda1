// An `a2a` start queued behind its workflow's concurrency (issue 17): the caller's task stays working (agentd, and
// this daemon before, answered it `rejected`) until its run starts after the live one and ends; and a workflow's
// queue is bounded: past 100 waiting starts one more is dropped, visibly (`run.dropped`), and its caller told.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { artifactText, asTask } from '../../e2e/daemon.js';
import { clientFor } from '../a2a/listenerHarness.js';
import { waitUntil } from '../wait.js';
import { commandRequest, daemon, doneOf, runsOf, settledTask } from './startRig.js';

const YAML = `workflows:
  - name: deployer
    concurrency: {max_runs: 1, on_overflow: queue}
    steps:
      s: {kind: a2a, command: deploy}
      go: {kind: wait, depends_on: [s], on: signal, signal: go, timeout: 60s}
      f: {kind: finish, depends_on: [go], output: "deployed {{steps.s.output.args.env}}"}
`;
const dir = mkdtempSync(join(tmpdir(), 'agentd-a2aqueued-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('a2a start queued behind concurrency', () => {
  it('keeps the caller task working until its run starts and ends, and bounds the queue', async () => {
    const { runtime, url, events, workflows } = await daemon(dir, YAML);
    try {
      const client = await clientFor(url);
      const desk = workflows.desk;
      assert.ok(desk);
      const first = asTask(await client.sendMessage(commandRequest('deploy', { env: 'a' }, 'm-1', true)));
      await waitUntil(() => runsOf(events, 'deployer').length === 1, 10_000, 'the first run started');
      const second = asTask(await client.sendMessage(commandRequest('deploy', { env: 'b' }, 'm-2', true)));
      await waitUntil(() => events.some((e) => e['event'] === 'start.a2a.queued'), 10_000, 'the second queued');
      const waiting = await client.getTask({ tenant: '', id: second.id });
      assert.equal(waiting.status?.state, TaskState.TASK_STATE_WORKING, 'queued, not rejected');
      assert.equal(runsOf(events, 'deployer').length, 1, 'the premise: it waits behind the live run');

      // Fill the rest of the queue without HTTP: 99 more wait, the 101st is dropped.
      const ask = (startKey: string) => ({ workflow: 'deployer', startKey, principal: null, conversation: null });
      for (let i = 0; i < 99; i++) {
        const got = await desk.start(ask(`fill-${i}`));
        assert.equal(got.ok === false && got.queued, true);
      }
      assert.equal(desk.queuedStarts, 100);
      const over = await desk.start(ask('fill-over'));
      assert.equal(over.ok, false);
      assert.equal(over.ok === false && over.queued, undefined, 'refused, not queued');
      const dropped = events.filter((e) => e['event'] === 'run.dropped');
      assert.equal(dropped.length, 1);
      assert.equal(dropped[0]?.['start_key'], 'fill-over');
      assert.equal(dropped[0]?.['reason'], 'queue_full');
      assert.match(String(dropped[0]?.['error']), /queue full/);
      const third = asTask(await client.sendMessage(commandRequest('deploy', { env: 'c' }, 'm-3', true)));
      const refused = await client.getTask({ tenant: '', id: third.id });
      assert.equal(refused.status?.state, TaskState.TASK_STATE_REJECTED, 'an overflowing caller is told at once');

      await desk.signal('go', null, 'go-1'); // ends run 1; the queued a2a start (the oldest) runs next
      await waitUntil(() => runsOf(events, 'deployer').length === 2, 10_000, 'the queued run started');
      assert.equal((await client.getTask({ tenant: '', id: second.id })).status?.state, TaskState.TASK_STATE_WORKING);
      await desk.signal('go', null, 'go-2');
      await waitUntil(() => doneOf(events, 'deployer').length === 2, 10_000, 'the queued run ended');
      const task = await settledTask(client, second.id);
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(task), 'deployed b');
      const one = await client.getTask({ tenant: '', id: first.id });
      assert.equal(one.status?.state, TaskState.TASK_STATE_COMPLETED);
      for (const id of desk.engine.live().map((r) => r.id)) await desk.engine.cancel(id, 'test over');
    } finally {
      await runtime.stop();
    }
  });

  it('a queued task whose run started: CancelTask cancels that run', async () => {
    const sub = mkdtempSync(join(dir, 'cancel-'));
    const { runtime, url, events, workflows } = await daemon(sub, YAML);
    try {
      const client = await clientFor(url);
      const desk = workflows.desk;
      assert.ok(desk);
      await client.sendMessage(commandRequest('deploy', { env: 'a' }, 'c-1', true));
      await waitUntil(() => runsOf(events, 'deployer').length === 1, 10_000, 'the first run started');
      const second = asTask(await client.sendMessage(commandRequest('deploy', { env: 'b' }, 'c-2', true)));
      await waitUntil(() => events.some((e) => e['event'] === 'start.a2a.queued'), 10_000, 'the second queued');
      await desk.signal('go', null, 'go-1');
      await waitUntil(() => runsOf(events, 'deployer').length === 2, 10_000, 'the queued run started');
      const fired = () => events.find((e) => e['event'] === 'start.a2a.fired' && e['task'] === second.id);
      await waitUntil(() => fired() !== undefined, 10_000, 'the queued start logged start.a2a.fired');
      const run = String(fired()?.['run']);
      assert.equal(fired()?.['queued'], true);
      const canceled = await client.cancelTask({ tenant: '', id: second.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      await waitUntil(() => doneOf(events, 'deployer').length === 2, 10_000, 'the queued run ended');
      const done = events.find((e) => e['event'] === 'run.done' && e['run'] === run);
      assert.equal(done?.['status'], 'cancelled', 'the run the queued start began is cancelled');
      assert.equal(desk.engine.live().length, 0);
    } finally {
      await runtime.stop();
    }
  });

  it('a task canceled while its start is queued: the start leaves the queue and no run begins', async () => {
    const sub = mkdtempSync(join(dir, 'withdraw-'));
    const { runtime, url, events, workflows } = await daemon(sub, YAML);
    try {
      const client = await clientFor(url);
      const desk = workflows.desk;
      assert.ok(desk);
      await client.sendMessage(commandRequest('deploy', { env: 'a' }, 'w-1', true));
      await waitUntil(() => runsOf(events, 'deployer').length === 1, 10_000, 'the first run started');
      const second = asTask(await client.sendMessage(commandRequest('deploy', { env: 'b' }, 'w-2', true)));
      await waitUntil(() => events.some((e) => e['event'] === 'start.a2a.queued'), 10_000, 'the second queued');
      assert.equal(desk.queuedStarts, 1, 'premise: one start waits');
      const queuedRows = () => runtime.supervisor.timers.list().filter((t) => t.kind === 'start_queued');
      assert.equal(queuedRows().length, 1, 'premise: the queued start is stored');

      const canceled = await client.cancelTask({ tenant: '', id: second.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED, 'canceled at once');
      assert.equal(desk.queuedStarts, 0, 'withdrawn from the queue');
      assert.equal(queuedRows().length, 0, 'its stored row is gone');
      const withdrawn = events.filter((e) => e['event'] === 'start.withdrawn');
      assert.deepEqual(
        withdrawn.map((e) => String(e['start_key']).endsWith(`/${second.id}`)),
        [true],
      );

      await desk.signal('go', null, 'go-1'); // ends run 1: nothing queued is left to run after it
      await waitUntil(() => doneOf(events, 'deployer').length === 1, 10_000, 'the first run ended');
      assert.equal(runsOf(events, 'deployer').length, 1, 'the withdrawn start began no run');
      assert.equal(desk.engine.live().length, 0);
      assert.equal((await client.getTask({ tenant: '', id: second.id })).status?.state, TaskState.TASK_STATE_CANCELED);
    } finally {
      await runtime.stop();
    }
  });
});
