// An `a2a` start's task across a SIGKILL (producers reference §3.7, §3.9): the run the command started is restored
// by the next life and, when it ends there, the caller's task ends with it (the first life's wait died with it).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { commandRequest } from '../integration/triggers/startRig.js';
import { waitUntil } from '../integration/wait.js';
import { artifactText, asTask, killAndRestart, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

const YAML = `a2a:
  listen: http://127.0.0.1:0
intelligence:
  endpoints: http://127.0.0.1:9
workflows:
  - name: deployer
    steps:
      s: {kind: a2a, command: deploy}
      nap: {kind: sleep, depends_on: [s], duration: 4s}
      f: {kind: finish, depends_on: [nap], output: "deployed {{steps.s.output.args.env}}"}
`;

describe('a2a start across a restart', () => {
  it("the restored run ends the caller's task in the next life", async () => {
    const dir = tempStateDir();
    const first = await startDaemon(dir, YAML);
    const task = asTask(
      await (await clientFor(first.url)).sendMessage(commandRequest('deploy', { env: 'eu' }, 'd-1', true)),
    );
    await waitUntil(
      () => first.events.some((e) => e.event === 'step.start' && e.step === 'nap'),
      15_000,
      'the run sleeps',
    );
    const second = await killAndRestart(first, dir, YAML);
    try {
      const client = await clientFor(second.url);
      let got = await client.getTask({ tenant: '', id: task.id });
      assert.equal(got.status?.state, TaskState.TASK_STATE_WORKING, 'premise: the task outlived life 1 working');
      await waitUntil(() => second.events.some((e) => e.event === 'run.done'), 20_000, 'the run ends in life 2');
      for (let i = 0; i < 100 && got.status?.state !== TaskState.TASK_STATE_COMPLETED; i++) {
        await new Promise((r) => setTimeout(r, 50));
        got = await client.getTask({ tenant: '', id: task.id });
      }
      // Before the engine's end hook, only life 1's in-memory wait ended the task: it stayed working.
      assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(got), 'deployed eu');
      assert.equal(second.events.filter((e) => e.event === 'run.start').length, 0, 'no second run');
    } finally {
      await second.stop();
    }
  });
});
