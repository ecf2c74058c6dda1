import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildAnthropicRequest, parseAnthropicResponse, systemText } from '../../../src/intel/anthropicWire.js';
import type { ReasoningParts, WireRequest } from '../../../src/intel/modelRequest.js';
import { planWireRequest } from '../../../src/intel/requestRules.js';
import type { Msg } from '../../../src/protocol/messages.js';

const request = (over: Partial<WireRequest> = {}): WireRequest => ({
  model: 'claude-sonnet-4-5',
  messages: [],
  system: 'You are the agent.',
  tools: [],
  maxTokens: 4096,
  ...over,
});

const calling: Msg = {
  role: 'assistant',
  text: 'calling',
  tool_calls: [
    { id: 'toolu_1', name: 'plan.get', arguments: { a: 1 } },
    { id: 'toolu_2', name: 'fs.read', arguments: { path: 'x' } },
  ],
  ts: 1,
};

describe('buildAnthropicRequest', () => {
  it('hoists every system message (prompt, summary, plan, notes) into system, joined by blank lines', () => {
    const { body } = buildAnthropicRequest(
      request({
        messages: [
          { role: 'system', text: 'Summary of earlier conversation:\nnarrative', ts: 1 },
          { role: 'system', text: 'Plan (0/1 done): ship', ts: 1 },
          { role: 'user', text: 'hi', ts: 1 },
          { role: 'note', text: 'turn ended', ts: 1 },
          { role: 'assistant', text: 'hello', tool_calls: [], ts: 1 },
        ],
      }),
    );
    assert.equal(
      systemText(body.system),
      'You are the agent.\n\nSummary of earlier conversation:\nnarrative\n\nPlan (0/1 done): ship\n\n[note] turn ended',
    );
    assert.deepEqual(body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ]);
  });
  it('omits system when there is none', () => {
    const { body } = buildAnthropicRequest(request({ system: ' ', messages: [{ role: 'user', text: 'x', ts: 1 }] }));
    assert.equal('system' in body, false);
  });
  it('marks the stable prefix for the prompt cache: after the last tool and after the system prompt (issue 14)', () => {
    const tools = [
      { name: 'memory.get', description: 'read', input_schema: { type: 'object' } },
      { name: 'add', description: 'add', input_schema: { type: 'object' } },
    ];
    const messages: Msg[] = [
      { role: 'system', text: 'Plan (0/1 done): ship', ts: 1 },
      { role: 'user', text: 'hi', ts: 1 },
    ];
    const { body } = buildAnthropicRequest(request({ tools, messages }));
    assert.deepEqual(
      body.tools?.map((t) => t.cache_control),
      [undefined, { type: 'ephemeral' }],
    );
    // The prompt is its own block with the breakpoint; the hoisted plan, which changes, follows unmarked.
    assert.deepEqual(body.system, [
      { type: 'text', text: 'You are the agent.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Plan (0/1 done): ship' },
    ]);
    assert.equal(JSON.stringify(body.messages).includes('cache_control'), false, 'messages change every round');
  });
  it('sets no breakpoint without tools or a prompt: hoisted text alone stays a plain string', () => {
    const messages: Msg[] = [
      { role: 'note', text: 'a note', ts: 1 },
      { role: 'user', text: 'x', ts: 1 },
    ];
    const { body } = buildAnthropicRequest(request({ system: '', messages }));
    assert.equal(body.system, '[note] a note');
    assert.equal('tools' in body, false);
  });
  it('sends tool_use blocks and tool_result blocks (is_error, string content), merged to keep alternation', () => {
    const { body } = buildAnthropicRequest(
      request({
        messages: [
          { role: 'user', text: 'go', ts: 1 },
          calling,
          { role: 'tool', id: 'toolu_1', name: 'plan.get', content: { plan: null }, is_error: false, ts: 1 },
          { role: 'note', text: 'mid-round note', ts: 1 },
          { role: 'tool', id: 'toolu_2', name: 'fs.read', content: 'no such file', is_error: true, ts: 1 },
          { role: 'user', text: 'and then?', ts: 1 },
        ],
      }),
    );
    assert.deepEqual(body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'calling' },
          { type: 'tool_use', id: 'toolu_1', name: 'plan_get', input: { a: 1 } },
          { type: 'tool_use', id: 'toolu_2', name: 'fs_read', input: { path: 'x' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"plan":null}', is_error: false },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'no such file', is_error: true },
          { type: 'text', text: 'and then?' },
        ],
      },
    ]);
    assert.match(systemText(body.system), /\[note\] mid-round note$/);
  });
  it('skips empty text and empty assistant messages, merging the users around them', () => {
    const { body } = buildAnthropicRequest(
      request({
        messages: [
          { role: 'user', text: 'one', ts: 1 },
          { role: 'assistant', text: '', tool_calls: [], ts: 1 },
          { role: 'user', text: '', ts: 1 },
          { role: 'user', text: 'two', ts: 1 },
        ],
      }),
    );
    assert.deepEqual(body.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
    ]);
  });
  it('lists tools with sanitized names and maps them back', () => {
    const tools = [{ name: 'memory.set', description: 'd', input_schema: { type: 'object' } }];
    const { body, nameMap } = buildAnthropicRequest(request({ tools }));
    assert.deepEqual(body.tools, [
      { name: 'memory_set', description: 'd', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    ]);
    assert.equal(nameMap.get('memory_set'), 'memory.set');
    assert.equal('tools' in buildAnthropicRequest(request()).body, false);
  });
  it('never sends a temperature, even when the request carries one', () => {
    const { body } = buildAnthropicRequest(request({ temperature: 0 }));
    assert.equal('temperature' in body, false);
    const planned = planWireRequest({ dialect: 'anthropic' }, { ...request(), temperature: 0.5 });
    assert.equal('temperature' in buildAnthropicRequest(planned).body, false);
  });
  it('sends thinking with its budget and output_config.format for a native schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const { body } = buildAnthropicRequest(request({ thinkingBudget: 8192, maxTokens: 12_288, outputSchema: schema }));
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 8192 });
    assert.equal(body.max_tokens, 12_288);
    assert.deepEqual(body.output_config, { format: { type: 'json_schema', schema } });
  });
  it('replays thinking blocks first, exactly as received, to the same model only', () => {
    const blocks = [
      { type: 'thinking', thinking: 'I should read it.', signature: 'sig-abc' },
      { type: 'redacted_thinking', data: 'opaque' },
    ];
    const parts: ReasoningParts = { model: 'claude-sonnet-4-5', dialect: 'anthropic', parts: blocks };
    const reasoning = new Map<Msg, unknown>([[calling, parts]]);
    const messages: Msg[] = [{ role: 'user', text: 'go', ts: 1 }, calling];
    const same = buildAnthropicRequest(request({ messages, reasoning })).body;
    assert.deepEqual(same.messages[1]?.content.slice(0, 3), [...blocks, { type: 'text', text: 'calling' }]);
    const other = buildAnthropicRequest(request({ model: 'claude-haiku-4-5', messages, reasoning })).body;
    assert.equal(other.messages[1]?.content[0]?.type, 'text');
  });
});

describe('parseAnthropicResponse', () => {
  const ok = (
    content: unknown[],
    stop_reason = 'end_turn',
    usage: unknown = { input_tokens: 20, output_tokens: 7 },
  ) => ({
    type: 'message',
    role: 'assistant',
    content,
    stop_reason,
    usage,
  });
  it('concatenates text blocks and reads usage', () => {
    const r = parseAnthropicResponse(
      ok([
        { type: 'text', text: 'Hello, ' },
        { type: 'text', text: 'world' },
      ]),
      new Map(),
    );
    assert.deepEqual(r, {
      text: 'Hello, world',
      toolCalls: [],
      usage: { input_tokens: 20, output_tokens: 7 },
      stopReason: 'end_turn',
      hasReasoning: false,
    });
  });
  it('maps stop reasons', () => {
    const cases: Array<[string, string]> = [
      ['end_turn', 'end_turn'],
      ['stop_sequence', 'end_turn'],
      ['tool_use', 'tool_use'],
      ['max_tokens', 'max_tokens'],
      ['refusal', 'other'],
      ['pause_turn', 'other'],
    ];
    for (const [wire, ours] of cases) {
      assert.equal(parseAnthropicResponse(ok([], wire), new Map()).stopReason, ours, wire);
    }
  });
  it('turns tool_use blocks into calls with restored names and object input', () => {
    const r = parseAnthropicResponse(
      ok([{ type: 'tool_use', id: 'toolu_9', name: 'memory_set', input: { key: 'k' } }], 'tool_use'),
      new Map([['memory_set', 'memory.set']]),
    );
    assert.deepEqual(r.toolCalls, [{ id: 'toolu_9', name: 'memory.set', arguments: { key: 'k' } }]);
    assert.equal(r.text, undefined);
  });
  it('keeps thinking blocks verbatim as reasoning parts tagged with the model', () => {
    const thinking = { type: 'thinking', thinking: 'long thought', signature: 'sig-1' };
    const r = parseAnthropicResponse(ok([thinking], 'max_tokens'), new Map(), 'claude-opus-4-1');
    assert.deepEqual(r.reasoning, { model: 'claude-opus-4-1', dialect: 'anthropic', parts: [thinking] });
    assert.equal(r.hasReasoning, true);
    assert.equal(r.text, undefined, 'premise: a reasoning-only answer has no body text');
    assert.equal(r.stopReason, 'max_tokens');
  });
  it('counts input_tokens alone as input and reports cache reads and writes apart; missing usage is 0', () => {
    const usage = {
      input_tokens: 5,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 1000,
      output_tokens: 3,
    };
    // Before the fix the cache counts were added in: input_tokens 1105.
    assert.deepEqual(parseAnthropicResponse(ok([], 'end_turn', usage), new Map()).usage, {
      input_tokens: 5,
      output_tokens: 3,
      cache_read_tokens: 1000,
      cache_write_tokens: 100,
    });
    assert.deepEqual(parseAnthropicResponse({ content: [] }, new Map()).usage, { input_tokens: 0, output_tokens: 0 });
  });
  it('turns an error object into intel: provider error', () => {
    const err = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    assert.throws(() => parseAnthropicResponse(err, new Map()), { message: 'intel: provider error: Overloaded' });
  });
  it('rejects malformed bodies with intel:', () => {
    for (const body of [
      null,
      [],
      'text',
      {},
      { content: 'x' },
      { content: [null] },
      { content: [{ type: 'tool_use' }] },
    ]) {
      assert.throws(() => parseAnthropicResponse(body, new Map()), { message: /^intel: malformed response/ });
    }
  });
});

describe('a tool_use cut off by the length limit', () => {
  it('is marked unparsable so it never runs', async () => {
    const { parseAnthropicResponse } = await import('../../../src/intel/anthropicWire.js');
    const json = {
      type: 'message',
      content: [{ type: 'tool_use', id: 't1', name: 'write', input: { path: '/a' } }],
      stop_reason: 'max_tokens',
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    const parsed = parseAnthropicResponse(json, new Map());
    assert.deepEqual(parsed.toolCalls[0]?.arguments, { _raw: '{"path":"/a"}' });
    const whole = parseAnthropicResponse({ ...json, stop_reason: 'tool_use' }, new Map());
    assert.deepEqual(whole.toolCalls[0]?.arguments, { path: '/a' }, 'premise: a complete call is untouched');
  });
});
