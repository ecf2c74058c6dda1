import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAbortError } from '../../../src/intel/httpPost.js';
import { callModel, endpointUrl } from '../../../src/intel/modelClient.js';
import type { ModelRequest } from '../../../src/intel/openaiWire.js';
import type { IntelligenceSpec } from '../../../src/protocol/frames.js';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';

const TOKEN = 'sk-test-very-secret-token-42';
const spec = (endpoints: string[], token: string | null = TOKEN): IntelligenceSpec => ({
  endpoints,
  token,
  timeout_ms: 120_000,
  model: 'test-model',
  dialect: 'openai',
  headers: [['X-Extra', 'yes']],
});
const request = (text: string): ModelRequest => ({
  model: 'test-model',
  messages: [{ role: 'user', text, ts: 1 }],
  system: '',
  tools: [],
  maxTokens: 100,
});
const fast = { backoffMs: [10, 20] };
const never = new AbortController().signal;

describe('endpointUrl', () => {
  it('appends /chat/completions to a base, keeps a full URL', () => {
    assert.equal(endpointUrl('http://h:1/v1').href, 'http://h:1/v1/chat/completions');
    assert.equal(endpointUrl('http://h:1/v1/').href, 'http://h:1/v1/chat/completions');
    assert.equal(endpointUrl('https://h/openai/chat/completions').href, 'https://h/openai/chat/completions');
  });
});

describe('callModel', () => {
  let model: ScriptedModel;
  let broken: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'fine' }],
      match: [
        { when_contains: 'unauthorized', http_status: 401, body: `{"error":{"message":"bad key ${TOKEN}"}}` },
        { when_contains: 'flaky', http_status: 503, times: 2 },
        { when_contains: 'garbled', raw: 'this is not json' },
        { when_contains: 'provider', raw: '{"error":{"message":"overloaded"}}' },
        { when_contains: 'hang', content: 'late', delay_ms: 60_000 },
      ],
    });
    broken = await startScriptedModel({ turns: [{ http_status: 500, body: 'down' }] });
  });
  after(async () => {
    await model.close();
    await broken.close();
  });

  it('sends bearer auth and extra headers, and returns the answer', async () => {
    const r = await callModel(spec([model.url]), request('plain'), never, fast);
    assert.equal(r.text, 'fine');
    const seen = model.requests.at(-1);
    assert.equal(seen?.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(seen?.headers['x-extra'], 'yes');
    assert.equal(seen?.path, '/v1/chat/completions');
  });
  it('omits authorization without a token', async () => {
    await callModel(spec([model.url], null), request('plain'), never, fast);
    assert.equal(model.requests.at(-1)?.headers.authorization, undefined);
  });
  it('401 is fatal at once, and the error never carries the token', async () => {
    const before = model.requests.length;
    const err = await callModel(spec([model.url]), request('unauthorized'), never, fast).catch((e: Error) => e);
    assert.ok(err instanceof Error);
    assert.match(err.message, /^intel: HTTP 401 from 127\.0\.0\.1:\d+: /);
    assert.ok(!err.message.includes(TOKEN), err.message);
    assert.equal(model.requests.length, before + 1, 'no retry on 401');
  });
  it('retries 503 twice on the same endpoint, then succeeds', async () => {
    const before = model.requests.length;
    const r = await callModel(spec([model.url]), request('flaky'), never, fast);
    assert.equal(r.text, 'fine');
    assert.equal(model.requests.length, before + 3);
  });
  it('fails over to the next endpoint after three 5xx', async () => {
    const before = broken.requests.length;
    const r = await callModel(spec([broken.url, model.url]), request('plain'), never, fast);
    assert.equal(r.text, 'fine');
    assert.equal(broken.requests.length, before + 3);
  });
  it('all endpoints down ⇒ intel: with the last error', async () => {
    await assert.rejects(
      callModel(spec([broken.url, 'http://127.0.0.1:9/v1']), request('x'), never, fast),
      (err: Error) => {
        assert.match(err.message, /^intel: all 2 endpoints failed; last: cannot reach 127\.0\.0\.1:9/);
        return true;
      },
    );
  });
  it('a malformed body and a provider error object are intel: errors', async () => {
    await assert.rejects(callModel(spec([model.url]), request('garbled'), never, fast), {
      message: /^intel: malformed response/,
    });
    await assert.rejects(callModel(spec([model.url]), request('provider'), never, fast), {
      message: 'intel: provider error: overloaded',
    });
  });
  it('an abort rejects promptly with an AbortError', async () => {
    const controller = new AbortController();
    const pending = callModel(spec([model.url]), request('hang'), controller.signal, fast);
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(pending, (err) => isAbortError(err));
  });
  it('refuses a dialect this build lacks', async () => {
    const vertex = { ...spec([model.url]), dialect: 'vertex' } as unknown as IntelligenceSpec;
    await assert.rejects(callModel(vertex, request('x'), never), { message: /^intel: dialect 'vertex'/ });
  });
});
