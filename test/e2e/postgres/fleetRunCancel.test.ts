// A workflow run cancelled through the workflow commands at a replica that does not run it (issue 19; interfaces
// reference §4.4), over built daemons and a real PostgreSQL, lease TTL 2 minutes. B runs a run (an `a2a` start's,
// sleeping a minute); a turn on A calls `workflow.cancel` with its id. A stores a cancel request and wakes the fleet;
// B cancels the run, and A's tool answers once the stored run ended.
// Premise: before, A's tool found no such run of its own ("no such run") and B's run slept on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type Playbook, type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { commandRequest } from '../../integration/triggers/startRig.js';
import { waitUntil } from '../../integration/wait.js';
import { type Daemon, send } from '../daemon.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

const WORKFLOW = [
  'workflows:',
  '  - name: deployer',
  '    steps:',
  '      s: {kind: a2a, command: deploy}',
  '      nap: {kind: sleep, depends_on: [s], duration: 60s}',
  '      f: {kind: finish, depends_on: [nap], output: "deployed"}',
];

describe('a workflow run cancelled at another replica', () => {
  let model: ScriptedModel;
  let url: string;
  const playbook: Playbook = { turns: [{ content: 'nothing to do' }, { content: 'cancelled it' }], match: [] };
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('fleet_run_cancel');
    model = await startScriptedModel(playbook);
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('a turn on A cancels the run B runs', { timeout: 120_000 }, async () => {
    const yaml = replicaYaml(model.url, '120s', WORKFLOW);
    const [a, b] = (await startReplicas(url, yaml, 2, daemons)) as [Daemon, Daemon];
    await (await clientFor(b.url)).sendMessage(commandRequest('deploy', {}, 'deploy-1', true));
    const napping = () => b.events.some((e) => e.event === 'step.start' && e.step === 'nap');
    await waitUntil(napping, 20_000, 'the run on B sleeps');
    const run = String(b.events.find((e) => e.event === 'run.start')?.run);
    playbook.match?.push({
      when_contains: 'cancel that run',
      times: 1,
      tool_calls: [{ name: 'workflow.cancel', arguments: { run, reason: 'no longer wanted' } }],
    });
    await (await clientFor(a.url)).sendMessage(send('cancel that run', {}, true));
    const ended = () => b.events.some((e) => e.event === 'run.done');
    await waitUntil(() => ended() && a.events.some((e) => e.event === 'turn.reply'), 20_000, 'B ends the run').catch(
      (err: unknown) => {
        process.stderr.write(`A:\n${a.stderr().slice(-3000)}\nB:\n${b.stderr().slice(-3000)}\n`);
        throw err;
      },
    );
    assert.equal(b.events.find((e) => e.event === 'run.done')?.status, 'cancelled');
    const toolResult = JSON.stringify(model.requests.at(-1)?.body);
    assert.match(toolResult, /\\"status\\":\\"cancelled\\"/, 'the tool on A answered the run cancelled');
    assert.doesNotMatch(toolResult, /no such run/);
    assert.ok(!a.events.some((e) => e.event === 'run.start'), 'A ran no run');
  });
});
