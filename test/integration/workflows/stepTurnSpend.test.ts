// What an agent or think step's turns spend counts against its run's `limits.tokens` (producers reference §2.6,
// §2.8): each turn's tokens are saved with the run before the step's end is applied; a run past its cap fails
// `exhausted tokens: limits.tokens = <cap>`, and `workflow.status` shows the tokens and the error. Real workers,
// the scripted model (16 tokens a call: 11 in, 5 out).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowDesk } from '../../../src/workflows/workflowDesk.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { waitUntil } from '../wait.js';

const steps = (name: string, cap: number): string => `  - name: ${name}
    limits: {tokens: ${cap}}
    steps:
      s: {kind: once}
      a: {kind: agent, depends_on: s, instruction: "Spend one for ${name}"}
      t: {kind: think, depends_on: a, prompt: "Spend two for ${name}"}
      f: {kind: finish, depends_on: t, output: "{{steps.t.output}}"}
`;

const YAML = `workflows:
${steps('spender', 20)}${steps('frugal', 1000)}  - name: watcher
    steps:
      s: {kind: manual}
      st: {kind: tool, depends_on: s, name: workflow.status, args: {run: "{{inputs.run}}"}}
      f: {kind: finish, depends_on: st, output: "{{steps.st.output}}"}
`;

describe('step turn spend and limits.tokens', () => {
  it('counts agent and think turns; a run past its cap fails with the cap error, shown by workflow.status', async () => {
    const playbook: Playbook = {
      turns: [{ content: 'unscripted' }],
      match: [
        { when_contains: 'Spend one', content: 'spent' },
        { when_contains: 'Spend two', content: '{"ok": true}' },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: YAML });
    try {
      await waitUntil(() => rig.named('run.done').length === 2, 40_000, 'both runs ended');
      const runs = await rig.store.workflows.listRuns({});
      const run = (name: string) => runs.find((r) => r.workflow === name);
      assert.equal(run('frugal')?.status, 'completed', String(run('frugal')?.error));
      assert.equal(run('frugal')?.tokens, 32, 'two turns of 16 tokens');
      const spender = run('spender');
      assert.equal(spender?.status, 'failed');
      assert.equal(spender?.error, 'exhausted tokens: limits.tokens = 20');
      assert.equal(spender?.tokens, 32);
      assert.notEqual(spender?.steps['f']?.status, 'done', 'the finish never ran');
      const desk = rig.ports.port('workflows')?.() as WorkflowDesk | undefined;
      assert.ok(desk);
      const got = await desk.start({
        workflow: 'watcher',
        inputs: { run: spender?.id },
        startKey: 'watch',
        principal: null,
        conversation: null,
      });
      assert.ok(got.ok);
      const watched = await desk.wait(got.run.id, 20_000);
      assert.ok(watched, 'the watcher ended');
      assert.equal(watched.status, 'completed', String(watched.error));
      const status = (watched.output as { runs: Array<Record<string, unknown>> }).runs[0];
      assert.equal(status?.['status'], 'failed');
      assert.equal(status?.['tokens'], 32);
      assert.equal(status?.['error'], 'exhausted tokens: limits.tokens = 20');
    } finally {
      await rig.close();
    }
  });

  it('a step turn its timeout cancelled still counts what it spent once it folds', async () => {
    const playbook: Playbook = {
      turns: [{ content: 'unscripted' }],
      match: [
        { when_contains: 'Spend slowly', times: 1, tool_calls: [{ name: 'no.such_tool', arguments: {} }] },
        { when_contains: 'Spend slowly', delay_ms: 60_000, content: 'too late' },
      ],
    };
    const yaml = `workflows:
  - name: slow
    limits: {tokens: 1000}
    steps:
      s: {kind: manual}
      a: {kind: agent, depends_on: s, instruction: "Spend slowly", timeout: 2s, on_error: continue}
      w: {kind: wait, depends_on: a, on: signal, signal: never, timeout: 60s}
      f: {kind: finish, depends_on: w, output: done}
`;
    const rig = await startRig(playbook, {}, { yaml });
    try {
      const desk = rig.ports.port('workflows')?.() as WorkflowDesk | undefined;
      assert.ok(desk);
      const got = await desk.start({
        workflow: 'slow',
        inputs: {},
        startKey: 'slow',
        principal: null,
        conversation: null,
      });
      assert.ok(got.ok);
      await waitUntil(() => rig.named('wait.armed').length === 1, 30_000, 'the agent step timed out; the wait armed');
      const spent = async () => (await rig.store.workflows.getRun(got.run.id))?.tokens ?? 0;
      const deadline = Date.now() + 20_000;
      while ((await spent()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok((await spent()) >= 16, `the cancelled turn's first model call (16 tokens) counts: ${await spent()}`);
      await desk.engine.cancel(got.run.id, 'test over');
    } finally {
      await rig.close();
    }
  });
});
