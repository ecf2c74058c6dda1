// callModel on the bedrock wire against the scripted model speaking Converse: the same turn as the OpenAI and
// Anthropic wire tests — a tool round, a structured answer, a 503 failover, a 403 fatal — each request SigV4-signed
// for the configured region and service `bedrock`, no temperature to a Claude model, and no key in any error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpPost } from '../../../src/intel/httpPost.js';
import { callModel } from '../../../src/intel/modelClient.js';
import type { ModelRequest } from '../../../src/intel/modelRequest.js';
import { createLogger } from '../../../src/obs/log.js';
import type { AwsAuth, IntelligenceSpec } from '../../../src/protocol/frames.js';
import type { Msg } from '../../../src/protocol/messages.js';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { sigV4Parts } from '../../doubles/scriptedModelBedrock.js';
import { within } from '../wait.js';

const T = { timeout: 15_000 };
const fast = { backoffMs: [10, 20] };
const never = new AbortController().signal;
const CLAUDE = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const AWS: AwsAuth = {
  region: 'eu-west-3',
  access_key_id: 'AKIASCRIPTEDKEY0001',
  secret_access_key: 'scripted/secret+access/key0001',
  session_token: 'scripted-session-token-0001',
};
const schema = { type: 'object', properties: { intent: { type: 'string' } }, required: ['intent'] };

const specFor = (endpoints: string[], over: Partial<IntelligenceSpec> = {}): IntelligenceSpec => ({
  endpoints,
  token: null,
  model: CLAUDE,
  dialect: 'bedrock',
  headers: [],
  timeout_ms: 10_000,
  aws: AWS,
  ...over,
});
const tools = [{ name: 'fs.read', description: 'read', input_schema: { type: 'object' } }];
const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: CLAUDE,
  messages: [{ role: 'user', text: 'read a', ts: 1 }],
  system: 'You are the agent.',
  tools,
  maxTokens: 1000,
  temperature: 0,
  ...over,
});

function noSecretIn(text: string): void {
  for (const s of [AWS.secret_access_key, AWS.session_token ?? '', AWS.access_key_id]) {
    assert.ok(!text.includes(s), text);
  }
}

describe('the bedrock wire', () => {
  let model: ScriptedModel;
  let down: ScriptedModel;
  let denied: ScriptedModel;
  before(async () => {
    [model, down, denied] = await Promise.all([
      startScriptedModel({
        turns: [
          { reasoning: 'need the file', tool_calls: [{ name: 'fs_read', arguments: { path: 'a' } }] },
          { content: 'the file says A' },
        ],
        match: [{ when_contains: 'classify', content: { intent: 'task' } }],
      }),
      startScriptedModel({ turns: [{ http_status: 503 }] }),
      startScriptedModel({ turns: [{ http_status: 403, body: `{"message":"denied for ${AWS.access_key_id}"}` }] }),
    ]);
  });
  after(async () => Promise.all([model, down, denied].map((m) => m.close())));

  it(
    'a tool round: signed for the region and service bedrock, Converse shapes, no temperature to Claude',
    T,
    async () => {
      const spec = specFor([model.base], { kind: 'reasoning', reasoning: { effort: 'low' } });
      const messages: Msg[] = [{ role: 'user', text: 'read a', ts: 1 }];
      const first = await within(callModel(spec, request({ messages }), never), 5000, 'first');
      assert.deepEqual(first.toolCalls, [{ id: first.toolCalls[0]?.id, name: 'fs.read', arguments: { path: 'a' } }]);
      const call = first.toolCalls[0];
      assert.ok(call);
      const assistant: Msg = { role: 'assistant', tool_calls: first.toolCalls, ts: 2 };
      messages.push(assistant, { role: 'tool', id: call.id, name: call.name, content: 'A', is_error: false, ts: 3 });
      const reasoning = new Map<Msg, unknown>([[assistant, first.reasoning]]);
      const second = await within(callModel(spec, request({ messages, reasoning }), never), 5000, 'second');
      assert.equal(second.text, 'the file says A');

      const [one, two] = model.requests;
      assert.equal(one?.path, `/model/${encodeURIComponent(CLAUDE)}/converse`);
      const sig = sigV4Parts(one?.headers ?? {});
      assert.ok(sig, String(one?.headers.authorization));
      assert.equal(sig.region, 'eu-west-3');
      assert.equal(sig.keyId, AWS.access_key_id);
      assert.ok(sig.signedHeaders.includes('host') && sig.signedHeaders.includes('x-amz-security-token'));
      assert.match(String(one?.headers['x-amz-date']), /^\d{8}T\d{6}Z$/);
      assert.equal(one?.headers['x-amz-security-token'], AWS.session_token);
      const body = one?.body as Record<string, Record<string, unknown>>;
      assert.deepEqual(body.inferenceConfig, { maxTokens: 1000 + 2048 }, 'no temperature for a Claude model id');
      assert.deepEqual(body.additionalModelRequestFields, { thinking: { type: 'enabled', budget_tokens: 2048 } });
      const sent = two?.body as { messages: Array<{ content: Array<Record<string, unknown>> }> };
      assert.deepEqual(Object.keys(sent.messages[1]?.content[0] ?? {}), ['reasoningContent'], 'thinking replayed');
      assert.deepEqual(sent.messages[2]?.content[0]?.toolResult, {
        toolUseId: call.id,
        content: [{ text: 'A' }],
        status: 'success',
      });
    },
  );

  it('a structured answer: output_config inside additionalModelRequestFields', T, async () => {
    const r = await callModel(
      specFor([model.base]),
      request({ messages: [{ role: 'user', text: 'classify', ts: 1 }], outputSchema: schema }),
      never,
    );
    assert.equal(r.text, '{"intent":"task"}');
    const body = model.requests.at(-1)?.body as Record<string, unknown>;
    assert.deepEqual(body.additionalModelRequestFields, { output_config: { format: { type: 'json_schema', schema } } });
  });

  it('a non-Claude model gets temperature 0 and the schema in the prompt', T, async () => {
    const nova = 'amazon.nova-pro-v1:0';
    const messages: Msg[] = [{ role: 'user', text: 'classify', ts: 1 }];
    await callModel(
      specFor([model.base], { model: nova }),
      request({ model: nova, messages, outputSchema: schema }),
      never,
    );
    const body = model.requests.at(-1)?.body as Record<string, unknown>;
    assert.deepEqual(body.inferenceConfig, { maxTokens: 1000, temperature: 0 });
    assert.equal('additionalModelRequestFields' in body, false);
    assert.match(JSON.stringify(body.system), /Reply with ONLY one JSON object/);
  });

  it('an inference-profile ARN declared family: claude gets no temperature and the native schema', T, async () => {
    const arn = 'arn:aws:bedrock:eu-west-3:123456789012:application-inference-profile/a1b2c3';
    const messages: Msg[] = [{ role: 'user', text: 'classify', ts: 1 }];
    const ask = (family: IntelligenceSpec['family']) =>
      callModel(
        specFor([model.base], { model: arn, family }),
        request({ model: arn, messages, outputSchema: schema }),
        never,
      );
    await ask(null);
    const guessed = model.requests.at(-1)?.body as Record<string, unknown>;
    assert.deepEqual(guessed.inferenceConfig, { maxTokens: 1000, temperature: 0 }, 'premise: the ARN names no claude');
    await ask('claude');
    const declared = model.requests.at(-1);
    assert.equal(declared?.path, `/model/${encodeURIComponent(arn)}/converse`);
    const body = declared?.body as Record<string, unknown>;
    assert.deepEqual(body.inferenceConfig, { maxTokens: 1000 });
    assert.deepEqual(body.additionalModelRequestFields, { output_config: { format: { type: 'json_schema', schema } } });
  });

  it('a 503 fails over to the next endpoint after two retries in place', T, async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', write: (l) => lines.push(l) });
    const messages: Msg[] = [{ role: 'user', text: 'classify', ts: 1 }];
    const r = await within(
      callModel(specFor([down.base, model.base]), request({ messages }), never, { ...fast, log }),
      5000,
      '503',
    );
    assert.equal(r.text, '{"intent":"task"}');
    assert.equal(down.requests.length, 3);
    assert.ok(
      down.requests.every((q) => sigV4Parts(q.headers) !== null),
      'every attempt is signed',
    );
    noSecretIn(lines.join('\n'));
  });

  it('a 403 is fatal: one request, no failover, an intel: error without any key', T, async () => {
    const before = model.requests.length;
    const err = await callModel(specFor([denied.base, model.base]), request(), never, fast).catch((e: Error) => e);
    assert.ok(err instanceof Error);
    assert.match(err.message, /^intel: HTTP 403 from 127\.0\.0\.1:\d+/);
    noSecretIn(err.message);
    assert.equal(denied.requests.length, 1);
    assert.equal(model.requests.length, before);
  });

  it('premise of the signature check: an unsigned Converse request is refused by the double with 403', T, async () => {
    const url = new URL(`${model.base}/model/${encodeURIComponent(CLAUDE)}/converse`);
    const body = JSON.stringify({
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      inferenceConfig: { maxTokens: 9 },
    });
    const res = await httpPost(url, body, {}, { signal: never, timeoutMs: 5000 });
    assert.equal(res.status, 403);
    assert.match(res.body, /Missing Authentication Token/);
  });
});
