// callModel against the scripted model on both wires: the request rules on the wire (temperature, effort,
// thinking, caps), structured generation (native and prompt), and Anthropic thinking replay within a turn.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callModel } from '../../../src/intel/modelClient.js';
import type { ModelRequest } from '../../../src/intel/modelRequest.js';
import { schemaPromptLine } from '../../../src/intel/requestRules.js';
import type { Dialect, IntelligenceSpec } from '../../../src/protocol/frames.js';
import type { Msg } from '../../../src/protocol/messages.js';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { scriptedSignature } from '../../doubles/scriptedModelAnthropic.js';
import { within } from '../wait.js';

const T = { timeout: 15_000 };
const never = new AbortController().signal;
const schema = { type: 'object', properties: { intent: { type: 'string' } }, required: ['intent'] };

const specFor = (dialect: Dialect, url: string, over: Partial<IntelligenceSpec> = {}): IntelligenceSpec => ({
  endpoints: [url],
  token: 'sk-wire-token',
  model: 'wire-model',
  dialect,
  headers: [],
  timeout_ms: 10_000,
  ...over,
});
const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'wire-model',
  messages: [
    { role: 'system', text: 'Summary of earlier conversation:', ts: 1 },
    { role: 'user', text: 'hi', ts: 1 },
    { role: 'note', text: 'a note', ts: 1 },
  ],
  system: 'You are the agent.',
  tools: [{ name: 'fs.read', description: 'read', input_schema: { type: 'object' } }],
  maxTokens: 1000,
  ...over,
});

describe('request rules on the wire', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: '{"intent":"task"}' }] });
  });
  after(async () => model.close());
  const last = () => model.requests.at(-1)?.body as Record<string, unknown>;

  it('anthropic: every system message hoisted, no temperature, x-api-key and version headers', T, async () => {
    const r = await within(callModel(specFor('anthropic', model.url), request({ temperature: 0 }), never), 5000, 'a');
    assert.equal(r.text, '{"intent":"task"}');
    const body = last();
    // The prompt carries the cache breakpoint; what was hoisted follows it (issue 14 item 5).
    assert.deepEqual(body.system, [
      { type: 'text', text: 'You are the agent.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Summary of earlier conversation:\n\n[note] a note' },
    ]);
    assert.deepEqual(body.messages, [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    assert.equal('temperature' in body, false);
    const tool = { name: 'fs_read', description: 'read', input_schema: { type: 'object' } };
    assert.deepEqual(body.tools, [{ ...tool, cache_control: { type: 'ephemeral' } }]);
    assert.equal(model.requests.at(-1)?.headers['anthropic-version'], '2023-06-01');
    assert.equal(model.requests.at(-1)?.path, '/v1/messages');
  });
  it('openai chat: temperature 0, system messages in place, max_tokens', T, async () => {
    await within(callModel(specFor('openai', model.url), request(), never), 5000, 'o');
    const body = last();
    assert.equal(body.temperature, 0);
    assert.equal(body.max_tokens, 1000);
    assert.equal((body.messages as unknown[]).length, 4);
  });
  it('reasoning models: OpenAI reasoning_effort + max_completion_tokens; Anthropic thinking budget', T, async () => {
    const reasoning = { kind: 'reasoning' as const, reasoning: { effort: 'low' as const } };
    await callModel(specFor('openai', model.url, reasoning), request({ model: 'o3-mini' }), never);
    const o = last();
    assert.equal(o.reasoning_effort, 'low');
    assert.equal(o.max_completion_tokens, 1000 + 2048);
    assert.equal('temperature' in o, false);
    await callModel(specFor('anthropic', model.url, reasoning), request(), never);
    const a = last();
    assert.deepEqual(a.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.equal(a.max_tokens, 1000 + 2048);
  });
  it('native structured generation: response_format on OpenAI, output_config.format on Anthropic', T, async () => {
    await callModel(specFor('openai', model.url), request({ outputSchema: schema }), never);
    assert.deepEqual(last().response_format, {
      type: 'json_schema',
      json_schema: { name: 'answer', schema, strict: false },
    });
    await callModel(specFor('anthropic', model.url), request({ outputSchema: schema }), never);
    assert.deepEqual(last().output_config, { format: { type: 'json_schema', schema } });
  });
  it('structured_output prompt: no format field, the schema in the system text', T, async () => {
    const prompt = { structured_output: 'prompt' as const };
    await callModel(specFor('openai', model.url, prompt), request({ outputSchema: schema }), never);
    const o = last();
    assert.equal('response_format' in o, false);
    const first = (o.messages as Array<{ role: string; content: string }>)[0];
    assert.equal(first?.content, `You are the agent.\n\n${schemaPromptLine(schema)}`);
    await callModel(specFor('anthropic', model.url, prompt), request({ outputSchema: schema }), never);
    const a = last();
    assert.equal('output_config' in a, false);
    assert.ok(JSON.stringify(a.system).includes(JSON.stringify(schemaPromptLine(schema)).slice(1, -1)));
  });
});

describe('anthropic thinking replay within a turn', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [
        { reasoning: 'I need the file first.', tool_calls: [{ name: 'fs_read', arguments: { path: 'a' } }] },
        { content: 'done' },
      ],
    });
  });
  after(async () => model.close());

  it('re-sends the thinking block with its signature before the tool_use it came with', T, async () => {
    const spec = specFor('anthropic', model.url, { kind: 'reasoning', reasoning: { effort: 'medium' } });
    const messages: Msg[] = [{ role: 'user', text: 'read a', ts: 1 }];
    const tools = [{ name: 'fs.read', description: 'read', input_schema: { type: 'object' } }];
    const first = await within(callModel(spec, request({ messages, tools }), never), 5000, 'first');
    assert.equal(first.toolCalls[0]?.name, 'fs.read');
    assert.equal(first.hasReasoning, true);
    const assistant: Msg = { role: 'assistant', tool_calls: first.toolCalls, ts: 2 };
    const call = first.toolCalls[0];
    assert.ok(call);
    messages.push(assistant, { role: 'tool', id: call.id, name: call.name, content: 'A', is_error: false, ts: 3 });
    const reasoning = new Map<Msg, unknown>([[assistant, first.reasoning]]);
    const second = await within(callModel(spec, request({ messages, tools, reasoning }), never), 5000, 'second');
    assert.equal(second.text, 'done');
    const sent = model.requests.at(-1)?.body as {
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    };
    assert.deepEqual(sent.messages[1]?.content[0], {
      type: 'thinking',
      thinking: 'I need the file first.',
      signature: scriptedSignature('I need the file first.'),
    });
    assert.equal(sent.messages[1]?.content[1]?.type, 'tool_use');
    assert.equal(sent.messages[2]?.content[0]?.type, 'tool_result');
  });
});
