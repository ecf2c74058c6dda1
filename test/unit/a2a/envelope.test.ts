// readEnvelope and paramsProblem: the order of checks (JSON, envelope, version, method, params) and the codes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_NESTING, nestedDeeper, readEnvelope } from '../../../src/a2a/envelope.js';
import { ID_MARK, stringifyRpc } from '../../../src/a2a/httpIo.js';
import { A2A_METHODS, paramsProblem } from '../../../src/a2a/params.js';
import { rawIdText } from '../../../src/a2a/rpcId.js';

const V = '1.0';
const body = (value: unknown) => JSON.stringify(value);
const request = (method: string, params: unknown, id: unknown = 1) => body({ jsonrpc: '2.0', id, method, params });

function codeOf(text: string, ...version: [string | undefined] | []): number | 'ok' {
  const result = readEnvelope(text, version.length === 0 ? V : version[0], ID_MARK);
  return result.ok ? 'ok' : result.error.code;
}

describe('readEnvelope', () => {
  it('accepts a request and marks the streaming methods', () => {
    const result = readEnvelope(request('SubscribeToTask', { id: 't' }, 'a'), V, ID_MARK);
    assert.ok(result.ok);
    assert.equal(result.request.id, 'a');
    assert.equal(result.request.method, 'SubscribeToTask');
    assert.equal(result.request.streaming, true);
    const plain = readEnvelope(request('GetTask', { id: 't' }), ' 1.0 ', ID_MARK);
    assert.ok(plain.ok && !plain.request.streaming);
  });

  it('is -32700 for malformed JSON', () => {
    assert.equal(codeOf('{"jsonrpc":'), -32700);
    assert.equal(codeOf(''), -32700);
  });

  it('is -32600 for anything but one JSON-RPC 2.0 request object', () => {
    for (const text of ['[]', '[{}]', '42', 'null', body({ id: 1, method: 'GetTask' })])
      assert.equal(codeOf(text), -32600, text);
    assert.equal(codeOf(body({ jsonrpc: '1.0', id: 1, method: 'GetTask' })), -32600);
    assert.equal(codeOf(body({ jsonrpc: '2.0', id: 1.5, method: 'GetTask' })), -32600);
    assert.equal(codeOf(body({ jsonrpc: '2.0', id: {}, method: 'GetTask' })), -32600);
    assert.equal(codeOf(body({ jsonrpc: '2.0', id: 1, method: 7 })), -32600);
  });

  it('is -32009 without A2A-Version 1.0, before looking at the method', () => {
    assert.equal(codeOf(request('GetTask', { id: 't' }), undefined), -32009);
    assert.equal(codeOf(request('GetTask', { id: 't' }), '0.3'), -32009);
    assert.equal(codeOf(request('Nope', {}), undefined), -32009);
  });

  it('is -32601 for an unknown or removed method name, keeping the id', () => {
    const result = readEnvelope(request('tasks/get', { id: 't' }, 9), V, ID_MARK);
    assert.ok(!result.ok);
    assert.equal(result.error.code, -32601);
    assert.equal(result.id, 9);
    const long = readEnvelope(request('x'.repeat(500), {}), V, ID_MARK);
    assert.ok(!long.ok && long.error.message.length < 100);
  });

  it('is -32602 when the params do not fit the method', () => {
    assert.equal(codeOf(request('GetTask', { id: 1 })), -32602);
    assert.equal(codeOf(request('GetTask', undefined)), -32602);
    assert.equal(codeOf(request('GetExtendedAgentCard', undefined)), 'ok');
  });
});

describe('paramsProblem', () => {
  const send = (message: unknown, extra: Record<string, unknown> = {}) => ({ message, ...extra });

  it('accepts what the official client sends', () => {
    const params = send(
      { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }, { data: { agentd: { op: 'status' } } }] },
      {
        configuration: { acceptedOutputModes: [], returnImmediately: true },
        metadata: { 'agentd/mode': 'chat' },
      },
    );
    assert.equal(paramsProblem('SendMessage', params), null);
    assert.equal(paramsProblem('ListTasks', { contextId: 'c', status: 'TASK_STATE_WORKING', pageSize: 10 }), null);
    assert.equal(paramsProblem('CancelTask', { id: 't', metadata: {} }), null);
  });

  it('names the first place that does not fit', () => {
    assert.equal(paramsProblem('SendMessage', {}), 'params.message: required');
    assert.equal(
      paramsProblem('SendMessage', send({ parts: [{}] })),
      'params.message.parts[0]: expected exactly one of text, raw, url, data',
    );
    assert.equal(
      paramsProblem('SendMessage', send({ parts: [{ text: 'a', data: 1 }] })),
      'params.message.parts[0]: expected exactly one of text, raw, url, data',
    );
    assert.equal(
      paramsProblem('SendMessage', send({ parts: [], contextId: 3 })),
      'params.message.contextId: expected a string',
    );
    assert.equal(paramsProblem('GetTask', { id: '  ' }), 'params.id: expected a non-empty string');
    assert.equal(
      paramsProblem('GetTask', { id: 't', historyLength: -1 }),
      'params.historyLength: expected an integer from 0',
    );
    assert.equal(paramsProblem('ListTasks', { pageSize: 0 }), 'params.pageSize: expected an integer from 1 to 100');
    assert.equal(paramsProblem('SubscribeToTask', 'x'), 'params: expected an object');
  });

  it('has a shape for every method', () => {
    for (const method of A2A_METHODS) assert.doesNotThrow(() => paramsProblem(method, {}), method);
    assert.equal(paramsProblem('GetTask', {}), 'params.id: required');
  });
});

describe('ids and nesting (issue 13)', () => {
  it('keeps an integer id past 2^53 exactly as sent, in every answer', () => {
    const text = `{"jsonrpc":"2.0","id":12345678901234567891,"method":"GetTask","params":{"id":1}}`;
    // The premise: parsed into a double the id is rounded.
    assert.equal(JSON.stringify(JSON.parse(text).id), '12345678901234567000');
    const read = readEnvelope(text, V, ID_MARK);
    assert.ok(!read.ok);
    assert.equal(stringifyRpc({ jsonrpc: '2.0', id: read.id }), '{"jsonrpc":"2.0","id":12345678901234567891}');
    assert.equal(rawIdText('{"id": "x", "params": {"id": 5}, "id" : -98765432109876543210}'), '-98765432109876543210');
    assert.equal(stringifyRpc({ id: 7, text: 'agentd-exact-id-guess:1' }), '{"id":7,"text":"agentd-exact-id-guess:1"}');
  });

  it('refuses params nested past the limit as -32602, without recursing (no stack overflow)', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const text = `{"jsonrpc":"2.0","id":3,"method":"SendMessage","params":{"message":{"parts":[{"data":${deep}}]}}}`;
    // The premise: anything recursive over this value overflows the stack.
    assert.throws(() => JSON.stringify(JSON.parse(text)), RangeError);
    const read = readEnvelope(text, V, ID_MARK);
    assert.ok(!read.ok);
    assert.equal(read.error.code, -32602);
    assert.equal(read.id, 3);
    assert.equal(nestedDeeper([[[]]], 3), false);
    assert.equal(nestedDeeper([[[[]]]], 3), true);
    assert.equal(nestedDeeper({ a: { b: 1 } }, MAX_NESTING), false);
  });
});
