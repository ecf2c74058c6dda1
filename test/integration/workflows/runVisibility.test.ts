// Runs are visible (issue 16 item 7): a live run and its running step in `status` (the supervisor's and the A2A
// status command's, which a user sees only for its own runs), the runs and steps counters and the live runs gauge
// on /metrics, over the real runtime (SQLite file, A2A listener).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DaemonClient } from '../../../src/client/daemonClient.js';
import { daemon } from '../triggers/startRig.js';
import { waitUntil } from '../wait.js';

const YAML = `
workflows:
  - name: nap
    steps:
      s: {kind: manual}
      wait: {kind: sleep, depends_on: s, duration: 1h}
      f: {kind: finish, depends_on: wait}
  - name: quick
    steps:
      s: {kind: manual}
      f: {kind: finish, depends_on: s, output: 1}
`;

const SIGNAL_YAML = `
workflows:
  - name: sig
    steps:
      s: {kind: manual}
      w: {kind: wait, depends_on: s, on: signal, signal: go, timeout: 60s}
      f: {kind: finish, depends_on: w, output: 1}
`;

/** Polls the exposition until it matches (the run's end is counted after its commit). */
async function metricsUntil(render: () => Promise<string>, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!pattern.test(await render())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} in /metrics`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

type LiveRun = {
  run: string;
  workflow: string;
  status: string;
  steps: Array<{ id: string; kind: string; status?: string }>;
};

describe('workflow runs in status and metrics', () => {
  it('status lists a live run at its step, for the operator and the run principal only; metrics count runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-runvis-'));
    const { runtime, url, workflows } = await daemon(dir, YAML);
    try {
      const desk = workflows.desk;
      assert.ok(desk);
      const ask = { inputs: {}, conversation: null };
      const quick = await desk.start({ ...ask, workflow: 'quick', startKey: 'k-quick', principal: null });
      const nap = await desk.start({ ...ask, workflow: 'nap', startKey: 'k-nap', principal: 'alice' });
      assert.ok(quick.ok && nap.ok);
      const runsOf = (doc: unknown) => (doc as { runs?: LiveRun[] }).runs;
      // Suspended, not only begun: a step is `running` for the few ticks before its kind's result is applied.
      const napping = () => runsOf(runtime.supervisor.status())?.[0]?.steps[0];
      await waitUntil(() => napping()?.id === 'wait' && napping()?.status === 'suspended', 10_000, 'the nap');
      const [live] = runsOf(runtime.supervisor.status()) ?? [];
      assert.deepEqual(
        { run: live?.run, workflow: live?.workflow, status: live?.status, steps: live?.steps },
        {
          run: nap.run.id,
          workflow: 'nap',
          status: 'running',
          steps: [{ id: 'wait', kind: 'sleep', status: 'suspended', attempt: 1 }],
        },
      );
      // The A2A status command (what `agentd status` prints) carries the same.
      const overA2a = await new DaemonClient({ url }).command('status');
      assert.equal(runsOf(overA2a)?.[0]?.run, nap.run.id);
      assert.deepEqual(runsOf(runtime.supervisor.status('bob')), [], "another principal does not see alice's run");
      assert.equal(runsOf(runtime.supervisor.status('alice'))?.length, 1);

      const metrics = () => runtime.supervisor.metrics.render();
      await metricsUntil(metrics, /^agentd_runs_total\{status="completed"\} 1$/m);
      assert.match(await metrics(), /^agentd_runs_started_total 2$/m);
      assert.match(await metrics(), /^agentd_runs_active 1$/m);
      assert.match(await metrics(), /^agentd_steps_total\{status="done"\} \d+$/m);
      await desk.engine.cancel(nap.run.id, 'enough');
      await metricsUntil(metrics, /^agentd_runs_total\{status="cancelled"\} 1$/m);
      // The sleeping step the cancel ended is a step end too (it was left out when only a result counted).
      assert.match(await metrics(), /^agentd_steps_total\{status="cancelled"\} 1$/m);
      assert.match(await metrics(), /^agentd_runs_active 0$/m);
      assert.deepEqual(runsOf(runtime.supervisor.status()), []);
    } finally {
      await runtime.stop();
    }
  });
  it('counts a step a signal ends: steps_total{status="done"} holds the wait step and the finish', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-runvis-'));
    const { runtime, workflows } = await daemon(dir, SIGNAL_YAML);
    try {
      const desk = workflows.desk;
      assert.ok(desk);
      const got = await desk.start({
        workflow: 'sig',
        startKey: 'k-sig',
        principal: null,
        inputs: {},
        conversation: null,
      });
      assert.ok(got.ok);
      await waitUntil(() => desk.engine.get(got.run.id)?.steps['w']?.status === 'suspended', 10_000, 'the wait');
      assert.equal(await desk.signal('go', { n: 1 }, 'k-go'), 1);
      const metrics = () => runtime.supervisor.metrics.render();
      await metricsUntil(metrics, /^agentd_runs_total\{status="completed"\} 1$/m);
      // `w` ends through the settled wait, `f` through its result: without the watch on every logged step end
      // (runEngine #log) only `f` was counted, 1.
      assert.match(await metrics(), /^agentd_steps_total\{status="done"\} 2$/m);
    } finally {
      await runtime.stop();
    }
  });
});
