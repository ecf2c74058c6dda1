import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelRequest } from '../../../src/intel/modelRequest.js';
import type { RuleSpec } from '../../../src/intel/requestRules.js';
import {
  outputCap,
  planWireRequest,
  promptCacheKey,
  schemaPromptLine,
  THINKING_ROOM,
  temperatureFor,
  usesCompletionTokens,
} from '../../../src/intel/requestRules.js';
import type { Msg } from '../../../src/protocol/messages.js';

const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'm',
  messages: [],
  system: 'sys',
  tools: [],
  maxTokens: 4096,
  ...over,
});
const schema = { type: 'object', properties: { intent: { type: 'string' } } };

describe('temperatureFor', () => {
  const table: Array<[string, RuleSpec, number | undefined, number | undefined]> = [
    ['openai chat, none asked', { dialect: 'openai' }, undefined, 0],
    ['openai chat, kind chat', { dialect: 'openai', kind: 'chat' }, 0.4, 0.4],
    ['openai decision', { dialect: 'openai', kind: 'decision' }, undefined, 0],
    ['openai reasoning kind', { dialect: 'openai', kind: 'reasoning' }, 0.4, undefined],
    ['openai chat with an effort', { dialect: 'openai', reasoning: { effort: 'low' } }, undefined, undefined],
    ['anthropic chat', { dialect: 'anthropic', kind: 'chat' }, 0, undefined],
    ['anthropic reasoning', { dialect: 'anthropic', kind: 'reasoning' }, undefined, undefined],
  ];
  for (const [name, spec, asked, sent] of table) {
    it(name, () => assert.equal(temperatureFor(spec, asked, 'some-model'), sent));
  }
  it('bedrock: nothing to a Claude model id, 0 to other models', () => {
    const bedrock: RuleSpec = { dialect: 'bedrock', kind: 'chat' };
    assert.equal(temperatureFor(bedrock, 0.3, 'anthropic.claude-sonnet-4-5-20250929-v1:0'), undefined);
    assert.equal(temperatureFor(bedrock, undefined, 'us.anthropic.claude-opus-4-1-20250805-v1:0'), undefined);
    assert.equal(temperatureFor(bedrock, undefined, 'amazon.nova-pro-v1:0'), 0);
  });
  it('bedrock: a declared family wins over the id (an inference-profile ARN names no claude)', () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6';
    const bedrock: RuleSpec = { dialect: 'bedrock', kind: 'chat' };
    // Premise: told from the id alone, the ARN gets a temperature Claude on Bedrock refuses.
    assert.equal(temperatureFor(bedrock, 0.3, arn), 0.3);
    assert.equal(temperatureFor({ ...bedrock, family: 'claude' }, 0.3, arn), undefined);
    assert.equal(temperatureFor({ ...bedrock, family: 'other' }, 0.3, 'anthropic.claude-x'), 0.3);
    assert.equal(temperatureFor({ dialect: 'openai', family: 'claude' }, 0.3, arn), 0.3, 'family is for bedrock');
  });
});

describe('planWireRequest on bedrock', () => {
  const reasoning: RuleSpec = { dialect: 'bedrock', kind: 'reasoning', reasoning: { effort: 'medium' } };
  it('a Claude model gets a thinking budget and a native schema; another model neither', () => {
    const claude = planWireRequest(reasoning, request({ model: 'anthropic.claude-x', outputSchema: schema }));
    assert.equal(claude.thinkingBudget, THINKING_ROOM.medium);
    assert.equal(claude.effort, undefined);
    assert.deepEqual(claude.outputSchema, schema);
    const nova = planWireRequest(reasoning, request({ model: 'amazon.nova-pro-v1:0', outputSchema: schema }));
    assert.equal(nova.thinkingBudget, undefined);
    assert.equal(nova.effort, undefined);
    assert.equal(nova.outputSchema, undefined);
    assert.equal(nova.system, `sys\n\n${schemaPromptLine(schema)}`);
  });
  it('an inference-profile ARN declared family: claude gets the thinking budget and the native schema', () => {
    const model = 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/x1y2z3';
    const byName = planWireRequest(reasoning, request({ model, outputSchema: schema }));
    assert.equal(byName.thinkingBudget, undefined, 'premise: the id alone does not say claude');
    const declared = planWireRequest({ ...reasoning, family: 'claude' }, request({ model, outputSchema: schema }));
    assert.equal(declared.thinkingBudget, THINKING_ROOM.medium);
    assert.deepEqual(declared.outputSchema, schema);
    assert.equal('temperature' in declared, false);
  });
});

describe('outputCap', () => {
  it('raises the cap by the thinking room of the configured effort', () => {
    assert.deepEqual(THINKING_ROOM, { low: 2048, medium: 8192, high: 24_576 });
    assert.equal(outputCap({ reasoning: { effort: 'low' } }, 4096), 4096 + 2048);
    assert.equal(outputCap({ reasoning: { effort: 'medium' } }, 4096), 4096 + 8192);
    assert.equal(outputCap({ reasoning: { effort: 'high' } }, 1000), 1000 + 24_576);
  });
  it('keeps the cap without an effort', () => {
    assert.equal(outputCap({}, 4096), 4096);
    assert.equal(outputCap({ reasoning: null }, 4096), 4096);
  });
});

describe('usesCompletionTokens', () => {
  it('is true for gpt-5, chatgpt-5 and o-series names, case-insensitively', () => {
    for (const m of ['gpt-5', 'gpt-5-mini', 'ChatGPT-5', 'o1', 'o3-mini', 'O4-mini'])
      assert.equal(usesCompletionTokens(m), true, m);
    for (const m of ['gpt-4o', 'gpt-4.1', 'claude-sonnet-4-5', 'llama-o1'])
      assert.equal(usesCompletionTokens(m), false, m);
  });
});

describe('planWireRequest', () => {
  it('openai chat: temperature 0, no effort, cap as given', () => {
    const w = planWireRequest({ dialect: 'openai', kind: 'chat' }, request());
    assert.equal(w.temperature, 0);
    assert.equal(w.effort, undefined);
    assert.equal(w.thinkingBudget, undefined);
    assert.equal(w.maxTokens, 4096);
  });
  it('openai reasoning: reasoning_effort, no temperature, raised cap', () => {
    const w = planWireRequest({ dialect: 'openai', kind: 'reasoning', reasoning: { effort: 'high' } }, request());
    assert.equal(w.effort, 'high');
    assert.equal('temperature' in w, false);
    assert.equal(w.thinkingBudget, undefined);
    assert.equal(w.maxTokens, 4096 + 24_576);
  });
  it('anthropic reasoning: a thinking budget from the effort and max_tokens = cap + budget', () => {
    const w = planWireRequest({ dialect: 'anthropic', kind: 'reasoning', reasoning: { effort: 'medium' } }, request());
    assert.equal(w.thinkingBudget, 8192);
    assert.equal(w.maxTokens, 4096 + 8192);
    assert.equal(w.effort, undefined);
    assert.equal('temperature' in w, false);
  });
  it('a reasoning kind without an effort gets neither effort nor a raised cap', () => {
    const w = planWireRequest({ dialect: 'anthropic', kind: 'reasoning' }, request());
    assert.equal(w.thinkingBudget, undefined);
    assert.equal(w.maxTokens, 4096);
  });
  it('native structured generation keeps the schema for the wire and the system text as is', () => {
    const w = planWireRequest({ dialect: 'openai' }, request({ outputSchema: schema }));
    assert.deepEqual(w.outputSchema, schema);
    assert.equal(w.system, 'sys');
    const n = planWireRequest({ dialect: 'anthropic', structured_output: 'native' }, request({ outputSchema: schema }));
    assert.deepEqual(n.outputSchema, schema);
  });
  it('structured_output prompt: no wire schema, the schema line appended to the system text', () => {
    const w = planWireRequest({ dialect: 'anthropic', structured_output: 'prompt' }, request({ outputSchema: schema }));
    assert.equal(w.outputSchema, undefined);
    assert.equal(w.system, `sys\n\n${schemaPromptLine(schema)}`);
    assert.match(w.system, /^sys\n\nReply with ONLY one JSON object matching this JSON Schema: \{"type":"object"/);
    const blank = planWireRequest(
      { dialect: 'openai', structured_output: 'prompt' },
      request({ system: '', outputSchema: schema }),
    );
    assert.equal(blank.system, schemaPromptLine(schema));
  });
  it('a non-object schema falls back to the prompt even when native is allowed', () => {
    const list = { type: 'array', items: { type: 'string' } };
    const w = planWireRequest({ dialect: 'openai' }, request({ outputSchema: list }));
    assert.equal(w.outputSchema, undefined);
    assert.ok(w.system.endsWith(schemaPromptLine(list)));
  });
  it('passes the reasoning map through untouched', () => {
    const reasoning = new Map<Msg, unknown>();
    assert.equal(planWireRequest({ dialect: 'openai' }, request({ reasoning })).reasoning, reasoning);
  });
});

describe('promptCacheKey', () => {
  it('is one stable digest per scope, naming no conversation', () => {
    const key = promptCacheKey('agentd/root');
    assert.match(key, /^agentd-[0-9a-f]{16}$/);
    assert.equal(promptCacheKey('agentd/root'), key);
    assert.notEqual(promptCacheKey('agentd/c-2'), key);
    assert.equal(key.includes('root'), false);
  });
  it('reaches the wire request on openai only: Anthropic and Bedrock mark breakpoints instead', () => {
    const req = request({ cacheKey: 'agentd/root' });
    assert.equal(planWireRequest({ dialect: 'openai' }, req).cacheKey, promptCacheKey('agentd/root'));
    assert.equal(planWireRequest({ dialect: 'anthropic' }, req).cacheKey, undefined);
    assert.equal(planWireRequest({ dialect: 'bedrock' }, req).cacheKey, undefined);
    assert.equal(planWireRequest({ dialect: 'openai' }, request()).cacheKey, undefined);
  });
});
