import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bedrockUrl, buildBedrockRequest, NO_OUTPUT, parseBedrockResponse } from '../../../src/intel/bedrockWire.js';
import type { WireRequest } from '../../../src/intel/modelRequest.js';
import type { Msg } from '../../../src/protocol/messages.js';

const CLAUDE = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const wire = (over: Partial<WireRequest> = {}): WireRequest => ({
  model: CLAUDE,
  messages: [
    { role: 'system', text: 'Summary.', ts: 1 },
    { role: 'user', text: 'read a', ts: 1 },
  ],
  system: 'You are the agent.',
  tools: [{ name: 'fs.read', description: 'read', input_schema: { type: 'object' } }],
  maxTokens: 1000,
  ...over,
});
const thought = { type: 'thinking', thinking: 'first the file', signature: 'sig-1' };

describe('bedrockUrl', () => {
  it('appends /model/<encoded id>/converse to a base; keeps a full …/converse URL', () => {
    assert.equal(
      bedrockUrl('https://bedrock-runtime.eu-west-1.amazonaws.com/', CLAUDE).href,
      'https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse',
    );
    assert.equal(bedrockUrl('http://h:1/model/x/converse', CLAUDE).pathname, '/model/x/converse');
  });
});

describe('buildBedrockRequest', () => {
  it('system hoisted, maxTokens in inferenceConfig, tools as toolSpec, no model in the body', () => {
    const { body } = buildBedrockRequest(wire());
    assert.deepEqual(body.system, [{ text: 'You are the agent.\n\nSummary.' }]);
    assert.deepEqual(body.messages, [{ role: 'user', content: [{ text: 'read a' }] }]);
    assert.deepEqual(body.inferenceConfig, { maxTokens: 1000 });
    assert.deepEqual(body.toolConfig, {
      tools: [{ toolSpec: { name: 'fs_read', description: 'read', inputSchema: { json: { type: 'object' } } } }],
      toolChoice: { auto: {} },
    });
    assert.equal('model' in body, false);
    assert.equal('additionalModelRequestFields' in body, false);
  });
  it('a temperature goes in inferenceConfig; thinking and output_config in additionalModelRequestFields', () => {
    const schema = { type: 'object' };
    const { body } = buildBedrockRequest(wire({ temperature: 0, thinkingBudget: 2048, outputSchema: schema }));
    assert.deepEqual(body.inferenceConfig, { maxTokens: 1000, temperature: 0 });
    assert.deepEqual(body.additionalModelRequestFields, {
      thinking: { type: 'enabled', budget_tokens: 2048 },
      output_config: { format: { type: 'json_schema', schema } },
    });
  });
  it('tool use and results in Converse shapes, with the reasoning replayed first as received', () => {
    const assistant: Msg = {
      role: 'assistant',
      tool_calls: [{ id: 't1', name: 'fs.read', arguments: { p: 'a' } }],
      ts: 2,
    };
    const result: Msg = { role: 'tool', id: 't1', name: 'fs.read', content: { err: 'no' }, is_error: true, ts: 3 };
    const reasoning = new Map<Msg, unknown>([[assistant, { model: CLAUDE, dialect: 'bedrock', parts: [thought] }]]);
    const { body } = buildBedrockRequest(
      wire({ messages: [{ role: 'user', text: 'go', ts: 1 }, assistant, result], reasoning }),
    );
    assert.deepEqual(body.messages[1], {
      role: 'assistant',
      content: [
        { reasoningContent: { reasoningText: { text: 'first the file', signature: 'sig-1' } } },
        { toolUse: { toolUseId: 't1', name: 'fs_read', input: { p: 'a' } } },
      ],
    });
    assert.deepEqual(body.messages[2], {
      role: 'user',
      content: [{ toolResult: { toolUseId: 't1', content: [{ text: '{"err":"no"}' }], status: 'error' } }],
    });
    const other = new Map<Msg, unknown>([[assistant, { model: 'another', dialect: 'bedrock', parts: [thought] }]]);
    const { body: toOther } = buildBedrockRequest(wire({ messages: [assistant], reasoning: other }));
    assert.equal(JSON.stringify(toOther).includes('reasoningContent'), false, 'never replayed to another model');
  });
});

describe('buildBedrockRequest with an empty tool result', () => {
  it('an error result with empty or blank content gets "(no output)": Converse refuses a blank text block', () => {
    const call: Msg = { role: 'assistant', tool_calls: [{ id: 't1', name: 'sh', arguments: {} }], ts: 2 };
    for (const content of ['', '  \n\t']) {
      const result: Msg = { role: 'tool', id: 't1', name: 'sh', content, is_error: true, ts: 3 };
      const { body } = buildBedrockRequest(wire({ messages: [{ role: 'user', text: 'go', ts: 1 }, call, result] }));
      // Without the placeholder the block would be { text: '' } (or whitespace), which Bedrock answers with a 400.
      assert.deepEqual(body.messages[2]?.content, [
        { toolResult: { toolUseId: 't1', content: [{ text: NO_OUTPUT }], status: 'error' } },
      ]);
    }
    assert.equal(NO_OUTPUT, '(no output)');
  });
});

describe('parseBedrockResponse', () => {
  const ok = (content: unknown[], stopReason = 'end_turn', usage: Record<string, number> = {}) => ({
    output: { message: { role: 'assistant', content } },
    stopReason,
    usage: { inputTokens: 12, outputTokens: 4, ...usage },
  });
  it('text, tool calls with names restored, stop reasons', () => {
    const names = new Map([['fs_read', 'fs.read']]);
    const r = parseBedrockResponse(
      ok([{ text: 'reading' }, { toolUse: { toolUseId: 'tu-1', name: 'fs_read', input: { p: 'a' } } }], 'tool_use'),
      names,
    );
    assert.equal(r.text, 'reading');
    assert.deepEqual(r.toolCalls, [{ id: 'tu-1', name: 'fs.read', arguments: { p: 'a' } }]);
    assert.equal(r.stopReason, 'tool_use');
    assert.equal(parseBedrockResponse(ok([], 'guardrail_intervened'), new Map()).stopReason, 'other');
  });
  it('input is inputTokens alone; cache reads and writes apart', () => {
    const r = parseBedrockResponse(
      ok([{ text: 'x' }], 'end_turn', { cacheReadInputTokens: 900, cacheWriteInputTokens: 50 }),
      new Map(),
    );
    assert.deepEqual(r.usage, { input_tokens: 12, output_tokens: 4, cache_read_tokens: 900, cache_write_tokens: 50 });
  });
  it('reasoning comes back as replayable parts tagged bedrock and the model', () => {
    const block = { reasoningContent: { reasoningText: { text: 'first the file', signature: 'sig-1' } } };
    const r = parseBedrockResponse(ok([block, { text: 'x' }]), new Map(), CLAUDE);
    assert.deepEqual(r.reasoning, { model: CLAUDE, dialect: 'bedrock', parts: [thought] });
    assert.equal(r.hasReasoning, true);
  });
  it('an error body or a malformed body is an intel: error', () => {
    assert.throws(() => parseBedrockResponse({ message: 'Too many tokens' }, new Map()), {
      message: 'intel: provider error: Too many tokens',
    });
    for (const body of [null, [], {}, { output: { message: { content: 'x' } } }]) {
      assert.throws(() => parseBedrockResponse(body, new Map()), { message: /^intel: malformed response/ });
    }
  });
});
