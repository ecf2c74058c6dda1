// Operator actions from any replica (issue 19; interfaces reference §4.4), over built daemons and a real PostgreSQL,
// lease TTL 2 minutes (the inbox sweep runs every 40 s).
// - Pause sent to A holds B too: a message sent to B queues, its model sees nothing; resume sent to A lets B run it.
//   Premise: before, pause held only the replica it reached, and B answered at once.
// - CancelTask sent to A for the task of an `a2a` start whose run runs on B: the run ends on B, the task CANCELED.
//   Premise: before, A found no such run of its own and marked the task canceled while B's run went on.
// - Answers: a turn on B asks a question (ask_human); the answer is sent to A,
// which runs nothing of that conversation. A stores the answer on the task and NOTIFYs; B hands it to its waiting
// turn, which ends with the answer as the tool's result. Premise: before, A's save of the answer was refused by the
// lease fence (B held the conversation) and the caller got an error; nothing reached B's turn.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { DaemonClient } from '../../../src/client/daemonClient.js';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { commandRequest } from '../../integration/triggers/startRig.js';
import { waitUntil } from '../../integration/wait.js';
import { asTask, type Daemon, send } from '../daemon.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('operator actions from any replica', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('fleet_operations');
    model = await startScriptedModel({
      turns: [{ content: 'thanks' }],
      match: [
        {
          when_contains: 'ask me at B',
          times: 1,
          tool_calls: [{ name: 'ask_human', arguments: { question: 'Which colour?' } }],
        },
      ],
    });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('pause and resume sent to A hold and free B', async () => {
    const [a, b] = (await startReplicas(url, replicaYaml(model.url, '120s'), 2, daemons)) as [Daemon, Daemon];
    const operatorA = new DaemonClient({ url: a.url });
    await operatorA.command('pause');
    await waitUntil(() => b.events.some((e) => e.event === 'agent.paused'), 20_000, 'B hears the pause');
    const before = model.requests.length;
    const task = asTask(await (await clientFor(b.url)).sendMessage(send('held while paused', {}, true)));
    // A bounded look: the message stays queued on B while the fleet is paused.
    await sleep(1_500);
    assert.equal(model.requests.length, before, 'B ran nothing while paused');
    await operatorA.command('resume');
    await waitUntil(() => b.events.some((e) => e.event === 'turn.reply'), 20_000, 'B runs it once resumed');
    assert.ok(
      b.events.some((e) => e.event === 'turn.spawn' && typeof e.inbox_event === 'string'),
      `B ran task ${task.id}`,
    );
    for (const d of [a, b]) await d.stop();
    daemons.length = 0;
  });

  it('a cancel sent to A ends the run B runs for an a2a start', async () => {
    const workflow = [
      'workflows:',
      '  - name: deployer',
      '    steps:',
      '      s: {kind: a2a, command: deploy}',
      '      nap: {kind: sleep, depends_on: [s], duration: 60s}',
      '      f: {kind: finish, depends_on: [nap], output: "deployed"}',
    ];
    const yaml = replicaYaml(model.url, '120s', workflow);
    const [a, b] = (await startReplicas(url, yaml, 2, daemons)) as [Daemon, Daemon];
    const atB = await clientFor(b.url);
    const task = asTask(await atB.sendMessage(commandRequest('deploy', {}, 'deploy-1', true)));
    const napping = () => b.events.some((e) => e.event === 'step.start' && e.step === 'nap');
    await waitUntil(napping, 20_000, 'the run on B sleeps');
    const canceled = await (await clientFor(a.url)).cancelTask({ tenant: '', id: task.id, metadata: undefined });
    assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
    await waitUntil(() => b.events.some((e) => e.event === 'run.done'), 20_000, 'the run on B ends').catch(
      (err: unknown) => {
        process.stderr.write(`A:\n${a.stderr().slice(-3000)}\nB:\n${b.stderr().slice(-3000)}\n`);
        throw err;
      },
    );
    const done = b.events.find((e) => e.event === 'run.done');
    assert.notEqual(done?.status, 'completed', 'the run did not finish its sleep');
    assert.ok(!a.events.some((e) => e.event === 'run.start'), 'A ran no run');
    for (const d of [a, b]) await d.stop();
    daemons.length = 0;
  });

  it('an answer sent to A reaches the question a turn on B waits on', async () => {
    const [a, b] = (await startReplicas(url, replicaYaml(model.url, '120s'), 2, daemons)) as [Daemon, Daemon];
    const atB = await clientFor(b.url);
    const task = asTask(await atB.sendMessage(send('ask me at B', {}, true)));
    await waitUntil(() => b.events.some((e) => e.state === 'input_required'), 20_000, 'the turn on B asks');
    const atA = await clientFor(a.url);
    const seen = await atA.getTask({ tenant: '', id: task.id });
    assert.equal(seen.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'A sees the question');
    await atA.sendMessage(send('blue', { taskId: task.id }, true));
    await waitUntil(() => b.events.some((e) => e.event === 'turn.reply'), 20_000, 'the turn on B ends').catch(
      (err: unknown) => {
        process.stderr.write(`A:\n${a.stderr().slice(-4000)}\nB:\n${b.stderr().slice(-4000)}\n`);
        throw err;
      },
    );
    const state = async () => (await atA.getTask({ tenant: '', id: task.id })).status?.state;
    for (let i = 0; i < 100 && (await state()) !== TaskState.TASK_STATE_COMPLETED; i++) await sleep(100);
    assert.equal(await state(), TaskState.TASK_STATE_COMPLETED, 'A reads the task completed');
    assert.match(JSON.stringify(model.requests.at(-1)?.body), /blue/, 'the answer reached the model on B');
    assert.equal(b.events.filter((e) => e.event === 'a2a.answer.relayed').length, 1);
    assert.ok(!a.events.some((e) => e.event === 'turn.spawn'), 'A ran nothing');
  });
});
