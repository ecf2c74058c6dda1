import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReasoningParts, WireRequest } from '../../../src/intel/modelRequest.js';
import { buildOpenAiRequest, parseOpenAiResponse, sanitizeToolName } from '../../../src/intel/openaiWire.js';
import type { Msg } from '../../../src/protocol/messages.js';

const request = (over: Partial<WireRequest> = {}): WireRequest => ({
  model: 'gpt-4o-mini',
  messages: [],
  system: 'sys',
  tools: [],
  maxTokens: 4096,
  ...over,
});

describe('buildOpenAiRequest', () => {
  it('puts a non-blank system prompt first and converts every Msg kind (§8.3)', () => {
    const { body } = buildOpenAiRequest(
      request({
        messages: [
          { role: 'system', text: 'Summary of earlier conversation:', ts: 1 },
          { role: 'user', text: 'hi', principal: 'alice', ts: 1 },
          {
            role: 'assistant',
            text: 'calling',
            tool_calls: [{ id: 'c1', name: 'plan.get', arguments: { a: 1 } }],
            ts: 1,
          },
          { role: 'tool', id: 'c1', name: 'plan.get', content: { plan: null }, is_error: false, ts: 1 },
          { role: 'tool', id: 'c2', name: 'x', content: 'boom', is_error: true, ts: 1 },
          { role: 'note', text: 'turn ended', ts: 1 },
          { role: 'assistant', tool_calls: [], ts: 1 },
        ],
      }),
    );
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'sys' },
      { role: 'system', content: 'Summary of earlier conversation:' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'calling',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'plan_get', arguments: '{"a":1}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"plan":null}' },
      { role: 'tool', tool_call_id: 'c2', content: 'ERROR: boom' },
      { role: 'system', content: '[note] turn ended' },
      { role: 'assistant', content: '' },
    ]);
  });
  it('omits a blank system prompt', () => {
    assert.deepEqual(buildOpenAiRequest(request({ system: '  \n' })).body.messages, []);
  });
  it('sanitizes tool names and maps them back', () => {
    const tools = [{ name: 'memory.set', description: 'd', input_schema: { type: 'object' } }];
    const { body, nameMap } = buildOpenAiRequest(request({ tools }));
    assert.equal(body.tools?.[0]?.function.name, 'memory_set');
    assert.deepEqual(body.tools?.[0]?.function.parameters, { type: 'object' });
    assert.equal(body.tool_choice, 'auto');
    assert.equal(nameMap.get('memory_set'), 'memory.set');
    assert.equal(sanitizeToolName('a.b/c d-e_f'), 'a_b_c_d-e_f');
  });
  it('sends tools and tool_choice only when there are tools', () => {
    const { body } = buildOpenAiRequest(request());
    assert.equal('tools' in body, false);
    assert.equal('tool_choice' in body, false);
  });
  it('uses max_completion_tokens for gpt-5/o-series models, else max_tokens', () => {
    for (const model of ['gpt-5-mini', 'ChatGPT-5', 'o1', 'o3-mini', 'o4-mini']) {
      const { body } = buildOpenAiRequest(request({ model }));
      assert.equal(body.max_completion_tokens, 4096, model);
      assert.equal(body.max_tokens, undefined, model);
    }
    assert.equal(buildOpenAiRequest(request({ model: 'gpt-4o' })).body.max_tokens, 4096);
  });
  it('sends the temperature the rules chose, none when absent', () => {
    assert.equal('temperature' in buildOpenAiRequest(request()).body, false);
    assert.equal(buildOpenAiRequest(request({ temperature: 0 })).body.temperature, 0);
    assert.equal(buildOpenAiRequest(request({ temperature: 0.7 })).body.temperature, 0.7);
  });
  it('asks for a json_schema response format for an object output schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const { body } = buildOpenAiRequest(request({ outputSchema: schema }));
    assert.deepEqual(body.response_format, {
      type: 'json_schema',
      json_schema: { name: 'answer', schema, strict: false },
    });
  });
});

describe('buildOpenAiRequest: reasoning', () => {
  const calling: Msg = { role: 'assistant', text: '', tool_calls: [{ id: 'c1', name: 'f', arguments: {} }], ts: 1 };
  const parts: ReasoningParts = { model: 'o3-mini', dialect: 'openai', parts: 'I should call f.' };
  it('sends reasoning_effort when the rules set an effort', () => {
    assert.equal(buildOpenAiRequest(request({ effort: 'high' })).body.reasoning_effort, 'high');
    assert.equal('reasoning_effort' in buildOpenAiRequest(request()).body, false);
  });
  it('replays reasoning_content on the assistant message it came with, to the same model only', () => {
    const reasoning = new Map<Msg, unknown>([[calling, parts]]);
    const same = buildOpenAiRequest(request({ model: 'o3-mini', messages: [calling], reasoning })).body;
    assert.equal(same.messages[1]?.reasoning_content, 'I should call f.');
    const other = buildOpenAiRequest(request({ model: 'gpt-4o', messages: [calling], reasoning })).body;
    assert.equal('reasoning_content' in (other.messages[1] ?? {}), false);
    const anthropicParts = new Map<Msg, unknown>([[calling, { ...parts, dialect: 'anthropic' }]]);
    const wrongWire = buildOpenAiRequest(request({ model: 'o3-mini', messages: [calling], reasoning: anthropicParts }));
    assert.equal('reasoning_content' in (wrongWire.body.messages[1] ?? {}), false);
  });
});

describe('prompt_cache_key', () => {
  it('is sent when the request has a cache key, and absent otherwise', () => {
    assert.equal(buildOpenAiRequest(request({ cacheKey: 'agentd-00ff' })).body.prompt_cache_key, 'agentd-00ff');
    assert.equal('prompt_cache_key' in buildOpenAiRequest(request()).body, false);
  });
});

describe('parseOpenAiResponse', () => {
  const ok = (message: unknown, extra: Record<string, unknown> = {}) => ({
    choices: [{ message, finish_reason: 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 5 },
    ...extra,
  });
  it('reads text, usage and the stop reason', () => {
    const r = parseOpenAiResponse(ok({ role: 'assistant', content: 'hi' }), new Map());
    assert.deepEqual(r, {
      text: 'hi',
      toolCalls: [],
      usage: { input_tokens: 11, output_tokens: 5 },
      stopReason: 'end_turn',
      hasReasoning: false,
    });
  });
  it('reports cached prompt tokens apart: input is prompt_tokens less the cached part (issue 14 item 5)', () => {
    const usage = { prompt_tokens: 5011, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 5000 } };
    const r = parseOpenAiResponse(ok({ content: 'hi' }, { usage }), new Map());
    // Premise: without the split, the 5,000 cached tokens would count as input (input_tokens 5011).
    assert.deepEqual(r.usage, { input_tokens: 11, output_tokens: 5, cache_read_tokens: 5000 });
    const odd = { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 50 } };
    const clamped = parseOpenAiResponse(ok({ content: 'hi' }, { usage: odd }), new Map());
    assert.deepEqual(clamped.usage, { input_tokens: 0, output_tokens: 1, cache_read_tokens: 10 }, 'never negative');
  });
  it('treats empty content as no text and missing usage as 0', () => {
    const r = parseOpenAiResponse({ choices: [{ message: { content: '' }, finish_reason: 'length' }] }, new Map());
    assert.equal(r.text, undefined);
    assert.equal('text' in r, false);
    assert.deepEqual(r.usage, { input_tokens: 0, output_tokens: 0 });
    assert.equal(r.stopReason, 'max_tokens');
  });
  it('parses tool calls, restores names, keeps unparsable arguments as _raw', () => {
    const message = {
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'memory_set', arguments: '{"key":"k"}' } },
        { id: 'call_2', type: 'function', function: { name: 'other', arguments: '{not json' } },
      ],
    };
    const r = parseOpenAiResponse(ok(message), new Map([['memory_set', 'memory.set']]));
    assert.deepEqual(r.toolCalls, [
      { id: 'call_1', name: 'memory.set', arguments: { key: 'k' } },
      { id: 'call_2', name: 'other', arguments: { _raw: '{not json' } },
    ]);
  });
  it('keeps reasoning_content as replayable parts tagged with the model; reasoning tokens count too', () => {
    const r = parseOpenAiResponse(ok({ content: null, reasoning_content: 'hmm' }), new Map(), 'o3-mini');
    assert.deepEqual(r.reasoning, { model: 'o3-mini', dialect: 'openai', parts: 'hmm' });
    assert.equal(r.hasReasoning, true);
    assert.equal(r.text, undefined);
    const hidden = ok({ content: '' }, { usage: { completion_tokens_details: { reasoning_tokens: 900 } } });
    const h = parseOpenAiResponse(
      { ...hidden, choices: [{ message: { content: '' }, finish_reason: 'length' }] },
      new Map(),
    );
    assert.equal(h.hasReasoning, true);
    assert.equal(h.reasoning, undefined);
    assert.equal(h.stopReason, 'max_tokens');
  });
  it('turns an error object into intel: provider error', () => {
    assert.throws(() => parseOpenAiResponse({ error: { message: 'model overloaded' } }, new Map()), {
      message: 'intel: provider error: model overloaded',
    });
  });
  it('rejects malformed bodies with intel:', () => {
    for (const body of [null, [], 'text', {}, { choices: [] }, { choices: [{}] }]) {
      assert.throws(() => parseOpenAiResponse(body, new Map()), { message: /^intel: malformed response/ });
    }
  });
});
