// The A2A listener driven by the official @a2a-js/sdk client over a fake backend: the card, blocking and
// non-blocking SendMessage, GetTask, ListTasks, CancelTask, streaming sends and SubscribeToTask.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { waitUntil, within } from '../wait.js';
import { clientFor, type Running, rawRequest, startListener, userMessage } from './listenerHarness.js';

function sendParams(text: string, returnImmediately = false) {
  return {
    tenant: '',
    message: userMessage(text),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  };
}

function asTask(result: unknown): Task {
  assert.ok(result && typeof result === 'object' && 'status' in result, 'expected a task');
  return result as Task;
}

function replyOf(task: Task): string | undefined {
  const content = task.artifacts[0]?.parts[0]?.content;
  return content?.$case === 'text' ? content.value : undefined;
}

async function collect(stream: AsyncGenerator<StreamResponse>, limit = 20): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) {
    events.push(event);
    if (events.length >= limit) break;
  }
  return events;
}

describe('A2aListener with the official client', () => {
  let running: Running;
  let client: Client;

  before(async () => {
    running = await startListener('  card:\n    description: Answers operations questions.\n');
    client = await within(clientFor(running.listener.url), 5_000, 'client discovery');
  });
  after(() => running.close());

  it('binds a free port, logs a2a.listen with the bound URL and serves the card', async () => {
    assert.match(running.listener.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(running.listener.url, 'http://127.0.0.1:0');
    const listen = running.events.find((e) => e['event'] === 'a2a.listen');
    assert.deepEqual(listen?.['bound'], running.listener.url);
    const card = await client.getAgentCard();
    assert.equal(card.name, 'desk');
    assert.equal(card.description, 'Answers operations questions.');
    assert.equal(card.version, '9.9.9');
    assert.deepEqual(
      card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion]),
      [[running.listener.url, 'JSONRPC', '1.0']],
    );
    assert.equal(card.capabilities?.streaming, true);
    assert.equal(card.capabilities?.pushNotifications, false);
    assert.deepEqual(card.defaultInputModes, ['text/plain', 'application/json']);
    assert.deepEqual(
      card.skills.map((s) => s.id),
      ['chat'],
    );
    const raw = await rawRequest(running.listener.url, null, {}, '/.well-known/agent-card.json');
    assert.equal(raw.status, 200);
    assert.equal((raw.json()['supportedInterfaces'] as Array<{ url: string }>)[0]?.url, running.listener.url);
  });

  it('a blocking SendMessage returns the completed task with the reply as its artifact', async () => {
    const task = asTask(await within(client.sendMessage(sendParams('echo: hello')), 5_000, 'blocking send'));
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(replyOf(task), 'hello');
    assert.equal(task.metadata?.['agentd/principal'], 'operator');
    const history = task.metadata?.['agentd/statusHistory'] as Array<{ state: string }>;
    assert.deepEqual(
      history.map((h) => h.state),
      ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'],
    );
    const status = task.status?.message?.parts[0]?.content;
    assert.deepEqual(status, { $case: 'text', value: 'hello' });
  });

  it('a non-blocking SendMessage returns at once (working); GetTask then shows it completed', async () => {
    const task = asTask(await client.sendMessage(sendParams('echo: later', true)));
    assert.equal(task.status?.state, TaskState.TASK_STATE_WORKING);
    assert.deepEqual(task.artifacts, []);
    await waitUntil(() => running.backend.tasks.get(task.id)?.state === 'completed', 5_000, 'the echo completes');
    const got = await client.getTask({ tenant: '', id: task.id });
    assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(replyOf(got), 'later');
    assert.equal(got.contextId, task.contextId);
  });

  it('passes the context id, task id and a command data part to the backend', async () => {
    const message = userMessage('status please', { contextId: 'my-ctx', taskId: 'task-1' });
    message.parts.push({
      content: { $case: 'data', value: { agentd: { op: 'status', verbose: true } } },
      metadata: undefined,
      filename: '',
      mediaType: 'application/json',
    });
    const params = { ...sendParams(''), message };
    const task = asTask(await client.sendMessage(params));
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
    const last = running.backend.sent.at(-1)?.req;
    assert.deepEqual(last, {
      text: 'status please',
      contextId: 'my-ctx',
      taskId: 'task-1',
      command: { op: 'status', args: { verbose: true } },
      messageId: message.messageId,
    });
  });

  it('ListTasks lists the caller tasks, filtered by context', async () => {
    await client.sendMessage({ ...sendParams('x', true), message: userMessage('held', { contextId: 'list-ctx' }) });
    const listed = await client.listTasks({
      tenant: '',
      contextId: 'list-ctx',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    assert.equal(listed.tasks.length, 1);
    assert.equal(listed.tasks[0]?.contextId, 'list-ctx');
  });

  it('CancelTask cancels a live task; a second cancel is not cancelable; an unknown id is not found', async () => {
    const task = asTask(await client.sendMessage(sendParams('wait for me', true)));
    const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
    await assert.rejects(client.cancelTask({ tenant: '', id: task.id, metadata: undefined }), TaskNotCancelableError);
    await assert.rejects(client.getTask({ tenant: '', id: 'no-such-task' }), TaskNotFoundError);
  });

  it('SendStreamingMessage streams the task, the reply artifact and the final status', async () => {
    const events = await within(collect(client.sendMessageStream(sendParams('echo: streamed'))), 5_000, 'stream');
    const cases = events.map((e) => e.payload?.$case);
    assert.deepEqual(cases, ['task', 'artifactUpdate', 'statusUpdate']);
    const [first, artifact, status] = events.map((e) => e.payload);
    assert.equal(first?.$case === 'task' && first.value.status?.state, TaskState.TASK_STATE_WORKING);
    const part = artifact?.$case === 'artifactUpdate' ? artifact.value.artifact?.parts[0]?.content : undefined;
    assert.deepEqual(part, { $case: 'text', value: 'streamed' });
    assert.equal(status?.$case === 'statusUpdate' && status.value.status?.state, TaskState.TASK_STATE_COMPLETED);
  });

  it('SubscribeToTask streams activity and the completion of a live task, then ends', async () => {
    const task = asTask(await client.sendMessage(sendParams('long job', true)));
    const stream = client.resubscribeTask({ tenant: '', id: task.id });
    const first = await within(stream.next(), 5_000, 'first event');
    assert.equal(first.value?.payload?.$case, 'task');
    await waitUntil(() => running.backend.watcherCount(task.id) > 0, 5_000, 'the listener watches the task');
    running.backend.activity(task.id, { phase: 'tool', tool: 'fetch', round: 2 });
    running.backend.finish(task.id, 'all done');
    const rest = await within(collect(stream), 5_000, 'rest of the stream');
    assert.deepEqual(
      rest.map((e) => e.payload?.$case),
      ['statusUpdate', 'artifactUpdate', 'statusUpdate'],
    );
    const activity = rest[0]?.payload;
    assert.deepEqual(activity?.$case === 'statusUpdate' && activity.value.metadata?.['agentd/activity'], {
      phase: 'tool',
      tool: 'fetch',
      round: 2,
    });
    await waitUntil(() => running.backend.watcherCount(task.id) === 0, 5_000, 'the watch is released');
  });

  it('SubscribeToTask on a finished task is unsupported; on an unknown one, not found', async () => {
    const done = asTask(await client.sendMessage(sendParams('echo: fin')));
    await assert.rejects(collect(client.resubscribeTask({ tenant: '', id: done.id })), UnsupportedOperationError);
    await assert.rejects(collect(client.resubscribeTask({ tenant: '', id: 'nope' })), TaskNotFoundError);
  });

  it('a client that leaves a stream releases its watch', async () => {
    const task = asTask(await client.sendMessage(sendParams('abandoned', true)));
    const controller = new AbortController();
    const stream = client.resubscribeTask({ tenant: '', id: task.id }, { signal: controller.signal });
    await within(stream.next(), 5_000, 'first event');
    await waitUntil(() => running.backend.watcherCount(task.id) === 1, 5_000, 'the listener watches the task');
    controller.abort();
    await waitUntil(() => running.backend.watcherCount(task.id) === 0, 5_000, 'the watch is released');
  });

  it('audits every request as a2a.request {principal, method, outcome} without message text', () => {
    const requests = running.events.filter((e) => e['event'] === 'a2a.request');
    assert.ok(requests.length >= 10);
    assert.ok(requests.some((e) => e['method'] === 'SendMessage' && e['outcome'] === 'ok'));
    assert.ok(requests.some((e) => e['method'] === 'GetTask' && e['outcome'] === -32001));
    assert.ok(requests.every((e) => e['principal'] === 'operator' && e['text'] === undefined));
    assert.ok(!JSON.stringify(requests).includes('hello'));
  });
});

describe('A2aListener.close', () => {
  it('answers a blocking send and ends an open stream at once, then refuses connections', async () => {
    const running = await startListener();
    const client = await within(clientFor(running.listener.url), 5_000, 'client discovery');
    const blocking = client.sendMessage(sendParams('never finishes'));
    const held = asTask(await client.sendMessage(sendParams('held', true)));
    const stream = client.resubscribeTask({ tenant: '', id: held.id });
    await within(stream.next(), 5_000, 'first event');
    await waitUntil(() => running.backend.tasks.size === 2, 5_000, 'both sends arrive');
    const started = Date.now();
    await within(running.close(), 5_000, 'close');
    assert.ok(Date.now() - started < 900, 'close did not wait for the grace period');
    const answered = asTask(await within(blocking, 5_000, 'the blocking send answers'));
    assert.equal(answered.status?.state, TaskState.TASK_STATE_WORKING);
    assert.deepEqual(await within(collect(stream), 5_000, 'the stream ends'), []);
    await assert.rejects(rawRequest(running.listener.url, null, {}, '/.well-known/agent-card.json'));
  });
});
