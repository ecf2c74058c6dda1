// Bad input over raw HTTP: malformed JSON, a non-envelope, unknown methods, wrong params, oversized bodies, a
// missing version header, junk tokens. Each gets its JSON-RPC error and the listener keeps serving.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JSON_V1, type RawReply, type Running, rawRequest, rpc, startListener } from './listenerHarness.js';

function errorOf(reply: RawReply): { code: number; message: string } {
  const body = reply.json();
  assert.equal(body['jsonrpc'], '2.0');
  return body['error'] as { code: number; message: string };
}

describe('A2aListener bad input', { timeout: 20_000 }, () => {
  let running: Running;
  let url: string;
  const hello = { message: { messageId: 'm', parts: [{ text: 'hi' }] }, configuration: { returnImmediately: true } };
  const good = () => rawRequest(url, rpc('SendMessage', hello), JSON_V1);

  before(async () => {
    running = await startListener('  max_body_bytes: 4096\n');
    url = running.listener.url;
  });
  after(() => running.close());

  it('answers a good request (the premise of the rest)', async () => {
    const reply = await good();
    assert.equal(reply.status, 200);
    const task = reply.json()['result'] as { task: { status: { state: string } } };
    assert.equal(task.task.status.state, 'TASK_STATE_WORKING');
  });

  it('malformed JSON is -32700', async () => {
    const reply = await rawRequest(url, '{"jsonrpc": "2.0", "method": ', JSON_V1);
    assert.equal(reply.status, 200);
    assert.equal(errorOf(reply).code, -32700);
    assert.equal(reply.json()['id'], null);
  });

  it('a body that is not a JSON-RPC request is -32600', async () => {
    for (const body of ['[]', '"text"', '{"id": 1, "method": "GetTask"}', '{"jsonrpc": "2.0", "id": 1}']) {
      const reply = await rawRequest(url, body, JSON_V1);
      assert.equal(errorOf(reply).code, -32600, body);
    }
  });

  it('an unknown method (or a removed name) is -32601, with the request id', async () => {
    for (const method of ['NoSuchMethod', 'message/send', 'tasks/get']) {
      const reply = await rawRequest(url, rpc(method, {}, 'req-7'), JSON_V1);
      assert.equal(errorOf(reply).code, -32601, method);
      assert.equal(reply.json()['id'], 'req-7');
    }
  });

  it('wrong parameter types are -32602, naming the place', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['GetTask', { id: 42 }, 'params.id'],
      ['GetTask', {}, 'params.id'],
      ['GetTask', [], 'params'],
      ['CancelTask', { id: '' }, 'params.id'],
      ['SendMessage', { message: { parts: 'hi' } }, 'params.message.parts'],
      ['SendMessage', { message: { parts: [{ text: 5 }] } }, 'params.message.parts[0].text'],
      [
        'SendMessage',
        { message: { parts: [{ text: 'a' }] }, configuration: { returnImmediately: 'yes' } },
        'params.configuration.returnImmediately',
      ],
      ['ListTasks', { pageSize: 1000 }, 'params.pageSize'],
    ];
    for (const [method, params, place] of cases) {
      const error = errorOf(await rawRequest(url, rpc(method, params), JSON_V1));
      assert.equal(error.code, -32602, `${method} ${JSON.stringify(params)}`);
      assert.ok(error.message.startsWith(place), error.message);
    }
  });

  it('a message without text is invalid params; a file part is an unsupported content type', async () => {
    const empty = await rawRequest(
      url,
      rpc('SendMessage', { message: { messageId: 'm', parts: [{ text: ' ' }] } }),
      JSON_V1,
    );
    assert.equal(errorOf(empty).code, -32602);
    const file = rpc('SendMessage', { message: { messageId: 'm', parts: [{ url: 'https://x.test/a.pdf' }] } });
    assert.equal(errorOf(await rawRequest(url, file, JSON_V1)).code, -32005);
  });

  it('backend refusals map to their codes: draining is -32603', async () => {
    const reply = await rawRequest(
      url,
      rpc('SendMessage', { message: { messageId: 'm', parts: [{ text: 'drain me' }] } }),
      JSON_V1,
    );
    assert.deepEqual(errorOf(reply), { code: -32603, message: 'the agent is draining' });
  });

  it('push notification methods are -32003', async () => {
    const reply = await rawRequest(
      url,
      rpc('CreateTaskPushNotificationConfig', { taskId: 't', url: 'https://x.test' }),
      JSON_V1,
    );
    assert.equal(errorOf(reply).code, -32003);
  });

  it('a body over a2a.max_body_bytes is HTTP 413, declared or streamed; the next request still works', async () => {
    const big = Buffer.alloc(64 * 1024, 'a');
    const declared = await rawRequest(url, big, JSON_V1);
    assert.equal(declared.status, 413);
    assert.equal(errorOf(declared).code, -32600);
    const streamed = await rawRequest(url, big, { ...JSON_V1, 'Transfer-Encoding': 'chunked' });
    assert.equal(streamed.status, 413);
    assert.equal((await good()).status, 200);
    const logged = running.events.filter((e) => e['event'] === 'a2a.request' && e['outcome'] === 'too_large');
    assert.equal(logged.length, 2);
  });

  it('a missing or other A2A-Version is -32009', async () => {
    const body = rpc('GetTask', { id: 'x' });
    const missing = await rawRequest(url, body, { 'Content-Type': 'application/json' });
    assert.equal(errorOf(missing).code, -32009);
    const old = await rawRequest(url, body, { 'Content-Type': 'application/json', 'A2A-Version': '0.3' });
    assert.equal(errorOf(old).code, -32009);
  });

  it('a non-JSON content type is -32005', async () => {
    const reply = await rawRequest(url, rpc('GetTask', { id: 'x' }), { ...JSON_V1, 'Content-Type': 'text/plain' });
    assert.equal(errorOf(reply).code, -32005);
  });

  it('any bearer token is refused when no principals are configured (HTTP 401, -31401)', async () => {
    const reply = await rawRequest(url, rpc('GetTask', { id: 'x' }), { ...JSON_V1, Authorization: 'Bearer junk' });
    assert.equal(reply.status, 401);
    assert.equal(errorOf(reply).code, -31401);
    assert.equal(reply.headers['www-authenticate'], 'Bearer');
  });

  it('a browser request (Origin) is never the implicit operator; an unlisted foreign origin is refused (403)', async () => {
    const local = await rawRequest(url, rpc('GetTask', { id: 'x' }), { ...JSON_V1, Origin: 'http://localhost:3000' });
    assert.equal(local.status, 401);
    const foreign = await rawRequest(url, rpc('GetTask', { id: 'x' }), { ...JSON_V1, Origin: 'https://evil.test' });
    assert.equal(foreign.status, 403);
  });

  it('other paths and verbs get 404 / 405; the card is served without authentication', async () => {
    assert.equal((await rawRequest(url, null, {}, '/nope')).status, 404);
    assert.equal((await rawRequest(url, null, {}, '/')).status, 405);
    assert.equal(
      (await rawRequest(url, null, { Origin: 'http://127.0.0.1:3000' }, '/.well-known/agent-card.json')).status,
      200,
    );
    assert.equal(
      (await rawRequest(url, null, { Origin: 'https://x.test' }, '/.well-known/agent-card.json')).status,
      403,
    );
  });

  it('keeps serving after all of it', async () => {
    assert.equal((await good()).status, 200);
  });
});
