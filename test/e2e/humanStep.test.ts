// A workflow `human` step over the real daemon (producers reference §2.8 `human`, turn reference §13): its question
// is an A2A task of the run that goes input-required; a SIGKILL while it waits leaves the same task asking in the
// next life (no second task), and `agentd answer` ends the step with the answer as its output.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { waitUntil, within } from '../integration/wait.js';
import { startDaemon } from './daemon.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';
import { asking, gateYaml, OPERATOR_TOKEN } from './humanGate.js';

const yaml = (model: ScriptedModel) =>
  gateYaml(model, 'ship', [
    's: {kind: once}',
    'h: {kind: human, depends_on: s, question: "Ship {{run.workflow}} now?", timeout: 5m}',
    'f: {kind: finish, depends_on: h, output: "{{steps.h.output}}"}',
  ]);

describe('a human step', () => {
  let model: ScriptedModel | undefined;
  after(async () => model?.close());

  it('asks on a task of the run, keeps asking on it after a SIGKILL, and takes the answer as its output', async () => {
    model = await startScriptedModel({ turns: [] });
    const dir = tempStateDir();
    const env = { OPERATOR_TOKEN };
    const life1 = await startDaemon(dir, yaml(model), env);
    await waitUntil(() => asking(life1.events).length === 1, 30_000, 'the question is asked');
    const [task] = asking(life1.events);
    const exited = new Promise((resolve) => life1.child.once('exit', resolve));
    life1.child.kill('SIGKILL');
    await within(exited, 10_000, 'the killed daemon exits');
    assert.equal(eventsNamed(life1, 'run.done').length, 0, 'premise: the run was waiting at the kill');
    const life2 = await startDaemon(dir, yaml(model), env);
    try {
      await waitUntil(() => asking(life2.events).length > 0, 30_000, 'the question is asked again after the restart');
      assert.deepEqual(asking(life2.events), [task], 'the same task asks again');
      const answered = await runAgentd(['answer', String(task), 'yes, ship it'], {
        env: { AGENTD_URL: life2.url, AGENTD_TOKEN: OPERATOR_TOKEN },
      });
      assert.equal(answered.code, 0, answered.stderr);
      await waitUntil(() => eventsNamed(life2, 'run.done').length > 0, 30_000, 'the run ended');
      assert.deepEqual(
        eventsNamed(life2, 'run.done').map((e) => e.status),
        ['completed'],
      );
    } finally {
      assert.equal(await life2.stop(), 0);
    }
    const store = new SqliteStore(dir);
    try {
      const runs = await store.workflows.listRuns({});
      assert.deepEqual(
        runs.map((r) => [r.status, r.output]),
        [['completed', 'yes, ship it']],
      );
      const stored = await store.tasks.get(String(task));
      assert.equal(stored?.state, 'completed');
      assert.equal(stored?.result, 'yes, ship it');
      assert.equal(stored?.principal, `run:${runs[0]?.id}`, 'a run acting for nobody: only operators answer');
    } finally {
      await store.close();
    }
  });
});

describe('a human step nobody answers', () => {
  let model: ScriptedModel | undefined;
  after(async () => model?.close());

  it('times out: the step is a `timeout`, on_error goes on, and the task is failed', async () => {
    model = await startScriptedModel({ turns: [] });
    const dir = tempStateDir();
    const config = yaml(model)
      .replace('timeout: 5m', 'timeout: 1s, on_error: continue')
      .replace('output: "{{steps.h.output}}"', 'output: "{{steps.h.output.error}}"');
    const daemon = await startDaemon(dir, config, { OPERATOR_TOKEN });
    try {
      await waitUntil(() => eventsNamed(daemon, 'run.done').length > 0, 30_000, 'the run ended');
      assert.deepEqual(
        eventsNamed(daemon, 'step.done')
          .filter((e) => e.step === 'h')
          .map((e) => e.status),
        ['timeout'],
      );
      assert.equal(asking(daemon.events).length, 1, 'premise: the question was asked');
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
    const store = new SqliteStore(dir);
    try {
      const [run] = await store.workflows.listRuns({});
      assert.equal(run?.status, 'completed');
      // The step's own timeout and the question's (counted from the task's creation) end at the same moment:
      // whichever fires first names it.
      assert.match(String(run?.output), /^(step timed out after 1000 ms|human: nobody answered in time)$/);
      const task = await store.tasks.get(asking(daemon.events)[0] ?? '');
      assert.deepEqual([task?.state, task?.message], ['failed', 'nobody answered in time']);
    } finally {
      await store.close();
    }
  });
});
