// Plan mode, engine events and goals through the daemon and the official A2A client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor, userMessage } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { artifactText, asTask, send, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

async function untilFinal(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) {
    events.push(event);
    const payload = event.payload;
    if (payload?.$case === 'statusUpdate' && payload.value.status?.state === TaskState.TASK_STATE_COMPLETED) break;
    if (events.length > 200) break;
  }
  return events;
}

/** The engine events of a stream, in order: `{type, …fields}` from status-update metadata. */
function engineEvents(events: StreamResponse[]): Array<Record<string, unknown>> {
  return events.flatMap((e) => {
    const meta = e.payload?.$case === 'statusUpdate' ? e.payload.value.metadata : undefined;
    const event = (meta as Record<string, unknown> | undefined)?.['agentd/event'];
    return event ? [event as Record<string, unknown>] : [];
  });
}

describe('steering over A2A', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'ok' }],
      match: [
        {
          when_contains: 'plan the rollout',
          times: 1,
          tool_calls: [
            { name: 'memory.set', arguments: { key: 'rollout', value: 'started' } },
            { name: 'memory.get', arguments: { key: 'rollout' } },
          ],
        },
        { when_contains: 'plan the rollout', content: 'Proposal: canary first, then 50%, then all.' },
        { when_contains: 'Evidence: counted to two', content: '{"achieved": true, "reason": "done"}' },
        {
          when_contains: 'continuation 2;',
          times: 1,
          tool_calls: [{ name: 'goal.complete', arguments: { evidence: 'counted to two' } }],
        },
        {
          when_contains: 'continuation 1;',
          times: 1,
          tool_calls: [{ name: 'memory.set', arguments: { key: 'c', value: 1 } }],
        },
      ],
    });
  });
  after(async () => model.close());

  it('plan mode from message metadata: a write tool is refused, the artifact is the proposal, events are distinct', async () => {
    const daemon = await startDaemon(
      tempStateDir(),
      `a2a:\n  listen: http://127.0.0.1:0\nagent:\n  preflight: never\nintelligence:\n  endpoints: ${model.url}\n`,
    );
    try {
      const client = await clientFor(daemon.url);
      const message = userMessage('plan the rollout', { contextId: 'roll', metadata: { 'agentd/mode': 'plan' } });
      const events = await within(untilFinal(client.sendMessageStream({ ...send(''), message })), 30_000, 'the stream');
      const engine = engineEvents(events);
      const types = engine.map((e) => e.type);
      assert.deepEqual(
        types.filter((t) => t !== 'memory'),
        ['tool_card', 'tool_card', 'body', 'proposal'],
        JSON.stringify(engine),
      );
      const [refused, read] = engine;
      assert.equal(refused?.tool, 'memory.set');
      assert.equal(refused?.is_error, true);
      assert.match(String(refused?.result), /plan mode forbids/);
      assert.equal(read?.tool, 'memory.get');
      assert.equal(read?.is_error, false);
      assert.ok(!types.includes('memory'), 'nothing was written, so no memory notice');
      assert.equal(engine.at(-1)?.text, 'Proposal: canary first, then 50%, then all.');
      const last = events.findLast((e) => e.payload?.$case === 'statusUpdate');
      const taskId = last?.payload?.$case === 'statusUpdate' ? last.payload.value.taskId : '';
      const task = await client.getTask({ tenant: '', id: taskId });
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(task), 'Proposal: canary first, then 50%, then all.');
    } finally {
      await daemon.stop();
    }
  });

  it('goal.set as a command: the conversation keeps working on its own until the judge accepts', async () => {
    const daemon = await startDaemon(
      tempStateDir(),
      `a2a:\n  listen: http://127.0.0.1:0\nagent:\n  preflight: never\nintelligence:\n  endpoints: ${model.url}\n`,
    );
    try {
      const client = await clientFor(daemon.url);
      const message = userMessage('', { contextId: 'counting' });
      message.parts = [
        {
          content: { $case: 'data', value: { agentd: { op: 'goal.set', objective: 'count to two' } } },
          metadata: undefined,
          filename: '',
          mediaType: 'application/json',
        },
      ];
      const task = asTask(await client.sendMessage({ ...send(''), message }));
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.match(artifactText(task), /"objective":"count to two"/);
      await waitUntil(() => daemon.events.some((e) => e.event === 'goal.achieved'), 30_000, 'the goal is achieved');
      assert.equal(daemon.events.filter((e) => e.event === 'goal.continued').length, 2);
      const achieved = daemon.events.find((e) => e.event === 'goal.achieved');
      assert.equal(achieved?.turns, 2);

      const get = userMessage('', { contextId: 'counting' });
      get.parts = [{ ...message.parts[0]!, content: { $case: 'data', value: { agentd: { op: 'goal.get' } } } }];
      const got = asTask(await client.sendMessage({ ...send(''), message: get }));
      assert.match(artifactText(got), /"status":"achieved"/);
    } finally {
      await daemon.stop();
    }
  });
});
