import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook, ScriptedModel } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import type { DepsOptions, PayloadOptions } from './turnHarness.js';
import { makeDeps, makePayload, roles, runWithTimeout, wireMessages } from './turnHarness.js';

async function turnWith(playbook: Playbook, payloadOpts: PayloadOptions = {}, depsOpts: DepsOptions = {}) {
  const model: ScriptedModel = await startScriptedModel(playbook);
  try {
    const payload = makePayload(model.url, payloadOpts);
    const { deps, bridge } = makeDeps(payload, depsOpts);
    const result = await runWithTimeout(payload, deps);
    return { result, bridge, requests: model.requests };
  } finally {
    await model.close();
  }
}

const keepCalling: Playbook = { turns: [{ tool_calls: [{ name: 'fs.read', arguments: { path: '/x' } }] }] };

describe('runTurn: limits', () => {
  it('max_rounds 2 with a model that keeps calling ⇒ exhausted_steps (AC-ROUNDS)', async () => {
    const { result } = await turnWith(keepCalling, { turn: { max_rounds: 2 } });
    assert.equal(result.status, 'exhausted_steps');
    assert.equal(result.rounds, 2);
    assert.equal(result.tool_calls, 2);
    const first = result.messages[1];
    assert.ok(first?.role === 'tool' && String(first.content).includes('transport error'));
  });

  it('limits.max_steps bounds rounds when max_rounds is 0', async () => {
    const { result } = await turnWith(keepCalling, { limits: { max_steps: 1 } });
    assert.equal(result.status, 'exhausted_steps');
    assert.equal(result.rounds, 1);
  });

  it('usage at limits.max_tokens ⇒ exhausted_tokens', async () => {
    const { result } = await turnWith(keepCalling, { limits: { max_tokens: 30 } });
    assert.equal(result.status, 'exhausted_tokens');
    assert.equal(result.rounds, 2);
    assert.deepEqual(result.usage, { input_tokens: 22, output_tokens: 14 });
  });

  it('cancel before the first call ⇒ cancelled with 0 rounds', async () => {
    const controller = new AbortController();
    controller.abort();
    const { result, requests } = await turnWith(
      keepCalling,
      {},
      {
        deps: { cancelled: () => true, cancelSignal: controller.signal },
      },
    );
    assert.equal(result.status, 'cancelled');
    assert.equal(result.rounds, 0);
    assert.equal(requests.length, 0);
  });

  it('the deadline aborts a model call in flight ⇒ deadline', async () => {
    const hang: Playbook = { turns: [{ content: 'late', delay_ms: 60_000 }] };
    const { result, requests } = await turnWith(hang, { limits: { deadline_ms: 300 } });
    assert.equal(requests.length, 1, 'premise: the model call was in flight');
    assert.equal(result.status, 'deadline');
    assert.equal(result.rounds, 0);
  });

  it('a cancel during a model call aborts it ⇒ cancelled', async () => {
    const hang: Playbook = { turns: [{ content: 'late', delay_ms: 60_000 }] };
    const cancel = new AbortController();
    const { result, requests } = await turnWith(
      hang,
      {},
      {
        deps: {
          cancelled: () => cancel.signal.aborted,
          cancelSignal: cancel.signal,
          progress: (event) => {
            if (event === 'turn.think') setTimeout(() => cancel.abort(), 100);
          },
        },
      },
    );
    assert.equal(requests.length, 1, 'premise: the model call was in flight');
    assert.equal(result.status, 'cancelled');
  });
});

describe('runTurn: answers', () => {
  const schema = {
    type: 'object',
    properties: { intent: { type: 'string', enum: ['chat', 'task'] } },
    required: ['intent'],
  };

  it('an empty plain answer still completes', async () => {
    const { result } = await turnWith({ turns: [{ content: '' }] });
    assert.equal(result.status, 'completed');
    assert.equal(result.text, '');
    assert.deepEqual(roles(result), ['assistant']);
  });

  it('structured: re-ask on a schema miss, then success (AC-SCHEMA)', async () => {
    const playbook: Playbook = {
      turns: [{ content: 'Sure: {"intent": "maybe"}' }],
      match: [{ when_contains: 'did not match the required schema', content: { intent: 'task' } }],
    };
    const { result, requests } = await turnWith(playbook, { turn: { kind: 'think', output_schema: schema } });
    assert.equal(result.status, 'completed');
    assert.equal(result.rounds, 2);
    assert.deepEqual(result.value, { intent: 'task' });
    assert.deepEqual(roles(result), ['assistant', 'user', 'assistant']);
    const correction = result.messages[1];
    assert.ok(correction?.role === 'user');
    assert.match(
      correction.text,
      /^Your answer did not match the required schema: .+\. Reply again with ONLY one JSON object that matches the schema\.$/,
    );
    const first = requests[0]?.body as Record<string, unknown>;
    assert.equal(first.tools, undefined, 'a think gets no tools');
  });

  it('structured: never valid ⇒ failed after 1 + 2 rounds', async () => {
    const { result } = await turnWith(
      { turns: [{ content: 'I would rather chat.' }] },
      { turn: { output_schema: schema } },
    );
    assert.equal(result.status, 'failed');
    assert.equal(result.rounds, 3);
    assert.equal(result.error, 'the answer was not valid JSON: I would rather chat.');
    assert.equal(result.error_kind, 'answer');
    assert.deepEqual(roles(result), ['assistant', 'user', 'assistant', 'user', 'assistant']);
  });
});

describe('runTurn: model failures', () => {
  const TOKEN = 'sk-worker-secret-token-99';

  it('401 ⇒ failed with intel:, the token never in the error', async () => {
    const playbook: Playbook = { turns: [{ http_status: 401, body: `{"error":{"message":"invalid key ${TOKEN}"}}` }] };
    const { result, requests } = await turnWith(playbook, { token: TOKEN });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /^intel: HTTP 401/);
    assert.equal(result.error_kind, 'intel');
    assert.ok(!JSON.stringify(result).includes(TOKEN));
    assert.equal(requests[0]?.headers.authorization, `Bearer ${TOKEN}`, 'premise: the token was sent');
  });

  it('503 twice then 200 ⇒ completed after retries', async () => {
    const playbook: Playbook = { turns: [{ http_status: 503, times: 2 }, { content: 'made it' }] };
    const { result, requests } = await turnWith(playbook);
    assert.equal(result.status, 'completed');
    assert.equal(result.text, 'made it');
    assert.equal(requests.length, 3);
    assert.equal(result.rounds, 1);
  });

  it('a malformed body ⇒ failed intel:', async () => {
    const { result } = await turnWith({ turns: [{ raw: '{"choices": [' }] });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /^intel: malformed response/);
  });

  it('a dead endpoint ⇒ failed intel:', async () => {
    const { result } = await turnWith({ turns: [{ content: 'x' }] }, { endpoints: ['http://127.0.0.1:9/v1'] });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /^intel: cannot reach 127\.0\.0\.1:9/);
    assert.equal(result.error_kind, 'intel');
  });

  it('sends the slice after the system prompt, with max_tokens 4096 by default', async () => {
    const { requests } = await turnWith({ turns: [{ content: 'hi' }] });
    const body = requests[0]?.body as { max_tokens: number; temperature: number; model: string };
    assert.equal(body.max_tokens, 4096);
    assert.equal(body.temperature, 0);
    assert.equal(body.model, 'test-model');
    assert.deepEqual(
      wireMessages(body).map((m) => m.role),
      ['system', 'user'],
    );
  });
});
