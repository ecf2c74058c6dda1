// An answer sent to a replica that lost the conversation earlier (issue 19; interfaces reference §4.4): R1 runs a
// turn, is SIGSTOPped inside its model call until R2 adopts the conversation, and is SIGCONTed; R2's rerun asks a
// question (ask_human). The answer is sent to R1, which lost that conversation: it stores the answer as a request
// on the task (a write conditional on the task as read, not fenced by the lost lease) and R2's waiting turn takes
// it. Premise: before, R1's save of the answer was refused `store_fenced` and the client got an error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../../integration/wait.js';
import { asTask, type Daemon, send } from '../daemon.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an answer sent to a replica that lost the conversation', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('answer_after_loss');
    // R1's call hangs 15 s; R2's rerun asks; the turn then ends with "thanks".
    model = await startScriptedModel({
      turns: [{ content: 'thanks' }],
      match: [
        { when_contains: 'ask me later', times: 1, delay_ms: 15_000, content: 'never stored' },
        {
          when_contains: 'ask me later',
          times: 1,
          tool_calls: [{ name: 'ask_human', arguments: { question: 'Which colour?' } }],
        },
      ],
    });
  });
  after(async () => {
    for (const d of daemons) {
      d.child.kill('SIGCONT');
      await d.stop().catch(() => {});
    }
    await model.close();
    await stopLazyServer();
  });

  it('is accepted at R1 and reaches the turn on R2 that asked', async () => {
    const [r1, r2] = (await startReplicas(url, replicaYaml(model.url, '2s'), 2, daemons)) as [Daemon, Daemon];
    const atR1 = await clientFor(r1.url);
    const task = asTask(await atR1.sendMessage(send('ask me later', {}, true)));
    await waitUntil(() => model.requests.length === 1, 20_000, "R1's worker calls the model");
    r1.child.kill('SIGSTOP');
    await waitUntil(() => r2.events.some((e) => e.event === 'lease.adopted'), 45_000, 'R2 adopts the conversation');
    await waitUntil(() => r2.events.some((e) => e.state === 'input_required'), 20_000, 'the rerun on R2 asks');
    r1.child.kill('SIGCONT');
    await waitUntil(() => r1.events.some((e) => e.event === 'lease.lost'), 10_000, 'R1 learns it lost it');
    const seen = await within(atR1.getTask({ tenant: '', id: task.id }), 5_000, 'GetTask on R1');
    assert.equal(seen.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'R1 sees the question');
    await within(atR1.sendMessage(send('blue', { taskId: task.id }, true)), 10_000, 'the answer sent to R1').catch(
      (err: unknown) => {
        process.stderr.write(`R1:\n${r1.stderr().slice(-4000)}\n`);
        throw err;
      },
    );
    await waitUntil(() => r2.events.some((e) => e.event === 'turn.reply'), 20_000, 'the turn on R2 ends').catch(
      (err: unknown) => {
        process.stderr.write(`R1:\n${r1.stderr().slice(-4000)}\nR2:\n${r2.stderr().slice(-4000)}\n`);
        throw err;
      },
    );
    const state = async () => (await atR1.getTask({ tenant: '', id: task.id })).status?.state;
    for (let i = 0; i < 100 && (await state()) !== TaskState.TASK_STATE_COMPLETED; i++) await sleep(100);
    assert.equal(await state(), TaskState.TASK_STATE_COMPLETED, 'R1 reads the task completed');
    assert.match(JSON.stringify(model.requests.at(-1)?.body), /blue/, 'the answer reached the model on R2');
    assert.equal(r2.events.filter((e) => e.event === 'a2a.answer.relayed').length, 1);
    assert.ok(!r1.events.some((e) => e.event === 'turn.reply'), 'R1 folded nothing');
  });
});
