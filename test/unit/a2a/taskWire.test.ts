// The mapping between task records and A2A wire types: states, status message, reply artifact, metadata, stream
// events, and a SendMessage's parts as the backend's SendRequest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Part, Role, type SendMessageRequest, Task, TaskState } from '@a2a-js/sdk';
import { BackendError } from '../../../src/a2a/backend.js';
import { asRpcError, RPC_CODES, RpcError, rpcErrorFromBackend } from '../../../src/a2a/rpcError.js';
import { isSettledState, stateOfWire, toSendRequest, toWireTask, updateEvents } from '../../../src/a2a/taskWire.js';
import type { TaskRecord } from '../../../src/domain/task.js';

function record(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: 'T1',
    context_id: 'ctx',
    conversation: 'a2a-1',
    state: 'working',
    principal: 'user:alice',
    inbox_event: 'E1',
    message: null,
    result: null,
    question: null,
    history: [
      { state: 'submitted', ts: 0 },
      { state: 'working', ts: 0 },
    ],
    created: 0,
    updated: 0,
    ...overrides,
  };
}

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});
const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

function request(parts: Part[], extra: Partial<SendMessageRequest['message'] & object> = {}): SendMessageRequest {
  const message = {
    messageId: 'm',
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

describe('toWireTask', () => {
  it('maps every state to its TASK_STATE_* and back', () => {
    const states = ['submitted', 'working', 'input_required', 'completed', 'failed', 'canceled', 'rejected'] as const;
    for (const state of states) {
      const wire = toWireTask(record({ state })).status?.state;
      assert.ok(wire !== undefined && wire !== TaskState.TASK_STATE_UNSPECIFIED);
      assert.equal(stateOfWire(wire), state);
    }
    assert.equal(stateOfWire(TaskState.TASK_STATE_UNSPECIFIED), undefined);
  });

  it('puts the reply in a text artifact and the status message in an agent message', () => {
    const done = record({ state: 'completed', message: 'the reply', result: 'the reply', updated: 2_000 });
    const json = Task.toJSON(toWireTask(done)) as Record<string, unknown>;
    assert.deepEqual(json['artifacts'], [
      { artifactId: 'T1-reply', name: 'reply', parts: [{ text: 'the reply', mediaType: 'text/plain' }] },
    ]);
    const status = json['status'] as Record<string, unknown>;
    assert.equal(status['state'], 'TASK_STATE_COMPLETED');
    assert.equal(status['timestamp'], '1970-01-01T00:00:02.000Z');
    assert.deepEqual((status['message'] as Record<string, unknown>)['role'], 'ROLE_AGENT');
  });

  it('carries the principal, the state history and an open question in metadata', () => {
    const asking = record({ state: 'input_required', message: 'Deploy?', question: { id: 'q1', text: 'Deploy?' } });
    const metadata = toWireTask(asking).metadata ?? {};
    assert.equal(metadata['agentd/principal'], 'user:alice');
    assert.deepEqual(metadata['agentd/question'], { id: 'q1' });
    assert.deepEqual(
      (metadata['agentd/statusHistory'] as Array<{ state: string }>).map((h) => h.state),
      ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'],
    );
    assert.deepEqual(toWireTask(record()).artifacts, []);
  });
});

describe('updateEvents', () => {
  it('sends the artifact before the final status of a completed task', () => {
    const events = updateEvents({ kind: 'task', task: record({ state: 'completed', result: 'ok', message: 'ok' }) });
    assert.deepEqual(
      events.map((e) => e.payload?.$case),
      ['artifactUpdate', 'statusUpdate'],
    );
  });

  it('sends activity as a status update with agentd/activity metadata', () => {
    const [event] = updateEvents({ kind: 'activity', task: record(), activity: { phase: 'thinking', round: 1 } });
    assert.ok(event?.payload?.$case === 'statusUpdate');
    assert.deepEqual(event.payload.value.metadata, { 'agentd/activity': { phase: 'thinking', round: 1 } });
  });
});

describe('isSettledState', () => {
  it('is true for terminal states and input_required', () => {
    assert.equal(isSettledState('working'), false);
    assert.equal(isSettledState('submitted'), false);
    assert.equal(isSettledState('input_required'), true);
    assert.equal(isSettledState('canceled'), true);
  });
});

describe('toSendRequest', () => {
  it('joins text parts, keeps context, task and message ids, and merges metadata', () => {
    const req = request([text('one'), text('two')], { contextId: 'c1', taskId: 't1', metadata: { b: 2 } });
    assert.deepEqual(toSendRequest({ ...req, metadata: { a: 1 } }), {
      text: 'one\ntwo',
      contextId: 'c1',
      taskId: 't1',
      metadata: { a: 1, b: 2 },
      messageId: 'm',
    });
  });

  it('reads an agentd data part as a command, other data as JSON text', () => {
    assert.deepEqual(toSendRequest(request([data({ agentd: { op: 'pause', run: 'r1' } }), data({ x: 1 })])), {
      text: '{"x":1}',
      command: { op: 'pause', args: { run: 'r1' } },
      messageId: 'm',
    });
  });

  it('refuses a malformed command (-32602) and file parts (-32005)', () => {
    assert.throws(() => toSendRequest(request([data({ agentd: { run: 'r1' } })])), { code: RPC_CODES.invalid_params });
    assert.throws(() => toSendRequest(request([data({ agentd: 'pause' })])), { code: RPC_CODES.invalid_params });
    const file: Part = {
      content: { $case: 'url', value: 'https://x.test/f' },
      metadata: undefined,
      filename: '',
      mediaType: '',
    };
    assert.throws(() => toSendRequest(request([file])), { code: RPC_CODES.content_type });
  });
});

describe('rpcErrorFromBackend', () => {
  it('maps each kind to its code and hides whose task it was', () => {
    const cases: Array<[BackendError['kind'], number]> = [
      ['not_found', -32001],
      ['forbidden', -31403],
      ['not_cancelable', -32002],
      ['unsupported', -32004],
      ['invalid_params', -32602],
      ['draining', -32603],
    ];
    for (const [kind, code] of cases) assert.equal(rpcErrorFromBackend(new BackendError(kind, 'x')).code, code, kind);
    const hidden = rpcErrorFromBackend(new BackendError('not_found', 'task T1 belongs to user:bob'));
    assert.equal(hidden.message, 'task not found');
  });

  it('a role refusal is the forbidden error (-31403, HTTP 403), not "task not found"', () => {
    const refused = rpcErrorFromBackend(new BackendError('forbidden', 'command "pause" is for the operator'));
    assert.deepEqual(
      [refused.code, refused.httpStatus, refused.message],
      [-31403, 403, 'command "pause" is for the operator'],
    );
  });

  it('turns an unexpected error into a bare internal error, reporting the original', () => {
    const seen: unknown[] = [];
    const err = asRpcError(new Error('/secret/path exploded'), (e) => seen.push(e));
    assert.deepEqual([err.code, err.message], [-32603, 'internal error']);
    assert.equal(seen.length, 1);
    const own = new RpcError(RPC_CODES.unsupported, 'nope');
    assert.equal(
      asRpcError(own, () => assert.fail('not unknown')),
      own,
    );
  });
});
