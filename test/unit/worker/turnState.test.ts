import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelResponse } from '../../../src/intel/modelRequest.js';
import { appendAssistant, buildRequest, initState } from '../../../src/worker/turnState.js';
import { makePayload } from './turnHarness.js';

const call = { id: 'call_1', name: 'memory.get', arguments: { key: 'k' } };

function response(over: Partial<ModelResponse> = {}): ModelResponse {
  return { toolCalls: [call], usage: { input_tokens: 1, output_tokens: 1 }, stopReason: 'tool_use', ...over };
}

const parts = (model: string) => ({ model, dialect: 'openai' as const, parts: 'thought' });

describe('buildRequest: reasoning replay', () => {
  it('replays the parts keyed by the request-side assistant message, for the model that produced them', () => {
    const s = initState(makePayload('http://127.0.0.1:9/v1'), 0);
    appendAssistant(s, response({ reasoning: parts('test-model'), model: 'test-model' }), undefined, [call], 1);
    const req = buildRequest(s);
    const assistant = req.messages.at(-1);
    assert.ok(assistant && req.reasoning?.get(assistant) !== undefined);
    assert.deepEqual(req.reasoning?.get(assistant), parts('test-model'));
    assert.equal(s.delta.length, 1);
    assert.ok(!JSON.stringify(s.delta).includes('thought'), 'never in the delta');
  });

  it('sends none after a degrade, nor parts a fallback model produced', () => {
    const s = initState(makePayload('http://127.0.0.1:9/v1'), 0);
    appendAssistant(s, response({ reasoning: parts('fallback-model'), model: 'fallback-model' }), undefined, [call], 1);
    assert.equal(buildRequest(s).reasoning, undefined, 'a fallback answer is not replayed to the turn model');
    appendAssistant(s, response({ reasoning: parts('test-model') }), undefined, [call], 2);
    assert.equal(buildRequest(s).reasoning?.size, 1);
    s.model = 'small';
    assert.equal(buildRequest(s).reasoning, undefined);
  });

  it('folds cut-off parts into the delta message; the model keeps seeing its own part', () => {
    const s = initState(makePayload('http://127.0.0.1:9/v1'), 0);
    appendAssistant(s, response({ text: 'two', toolCalls: [] }), 'one two', [], 1);
    const sent = s.messages.at(-1);
    const kept = s.delta.at(-1);
    assert.equal(sent?.role === 'assistant' && sent.text, 'two');
    assert.equal(kept?.role === 'assistant' && kept.text, 'one two');
  });

  it('requests the raised cap', () => {
    const s = initState(makePayload('http://127.0.0.1:9/v1'), 0);
    assert.equal(buildRequest(s).maxTokens, 4096);
    s.wrap = { ...s.wrap, cap: 8192 };
    assert.equal(buildRequest(s).maxTokens, 8192);
  });
});
