// The `a2a` start node over real HTTP with the official A2A client (producers reference §3.7 step 2, §3.9): a
// command a start declares starts a workflow run, not a turn; the run acts for the caller in its conversation; the
// caller's task follows the run to its end; a retry of the message starts nothing new; other commands stay commands.
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
    steps:
      s: {kind: a2a, command: deploy, roles: [operator]}
      f: {kind: finish, depends_on: [s], output: "deployed {{steps.s.output.args.env}} for {{steps.s.output.principal}}"}
`;
const dir = mkdtempSync(join(tmpdir(), 'agentd-a2astart-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('a2a start node', () => {
  it('a declared command starts one run acting for the caller, and its task ends with the run', async () => {
    const { runtime, url, events } = await daemon(dir, YAML);
    try {
      const client = await clientFor(url);
      const first = asTask(await client.sendMessage(commandRequest('deploy', { env: 'prod' }, 'deploy-1')));
      await waitUntil(() => doneOf(events, 'deployer').length === 1, 10_000, 'the run ended');
      const task = await settledTask(client, first.id);
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(task), 'deployed prod for operator');
      assert.equal(task.contextId, 'ops');
      const [start] = runsOf(events, 'deployer');
      assert.equal(start?.['principal'], 'operator', 'the run acts for the caller (agentd: nobody)');
      const fired = events.filter((e) => e['event'] === 'start.a2a.fired');
      assert.deepEqual(
        fired.map((e) => [e['command'], e['role'], e['conversation']]),
        [['deploy', 'operator', 'ops']],
      );
      assert.equal(events.filter((e) => e['event'] === 'inbox.accepted').length, 0, 'the message started no turn');

      const again = asTask(await client.sendMessage(commandRequest('deploy', { env: 'prod' }, 'deploy-1')));
      assert.equal(again.id, first.id, 'a retry gets the same task');
      assert.equal(runsOf(events, 'deployer').length, 1, 'and starts no second run');

      const status = asTask(await client.sendMessage(commandRequest('status', {}, 'status-1')));
      assert.equal(status.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.match(artifactText(status), /"instance"/, 'an undeclared command is still a command');
      assert.equal(runsOf(events, 'deployer').length, 1);
    } finally {
      await runtime.stop();
    }
  });
});
