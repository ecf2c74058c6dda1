import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';

function post(url: string, body: unknown, timeoutMs = 5000): Promise<{ status: number; json: unknown; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json, text });
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const messages = (tools: number, text = 'hi') => ({
  model: 'm',
  messages: [{ role: 'user', content: text }, ...Array.from({ length: tools }, () => ({ role: 'tool', content: 'x' }))],
});

describe('scripted model double', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [
        {
          tool_calls: [
            { name: 'memory.set', arguments: { key: 'k' } },
            { name: 'plan.get', arguments: '{}' },
          ],
        },
        { content: { verdict: 'ok' }, usage: { prompt_tokens: 100, completion_tokens: 20 } },
      ],
      match: [
        { when_contains: 'flaky', http_status: 503, times: 2 },
        { when_contains: 'flaky', content: 'recovered' },
        { when_contains: 'garbled', raw: '{"choices": [' },
        { when_contains: 'slow', content: 'late', delay_ms: 60_000 },
      ],
    });
  });
  after(async () => model.close());

  it('answers turns[number of tool messages] with call ids and default usage', async () => {
    const r = await post(`${model.url}/chat/completions`, messages(0));
    const choice = (
      r.json as {
        choices: Array<{
          message: { tool_calls: Array<{ id: string; function: { name: string; arguments: string } }> };
          finish_reason: string;
        }>;
      }
    ).choices[0];
    assert.deepEqual(
      choice?.message.tool_calls.map((c) => [c.id, c.function.name, c.function.arguments]),
      [
        ['call_1', 'memory.set', '{"key":"k"}'],
        ['call_2', 'plan.get', '{}'],
      ],
    );
    assert.equal(choice?.finish_reason, 'tool_calls');
    assert.deepEqual((r.json as { usage: unknown }).usage, {
      prompt_tokens: 11,
      completion_tokens: 7,
      total_tokens: 18,
    });
  });
  it('clamps to the last turn and serializes object content', async () => {
    const r = await post(`${model.url}/chat/completions`, messages(5));
    const json = r.json as { choices: Array<{ message: { content: string } }>; usage: { prompt_tokens: number } };
    assert.equal(json.choices[0]?.message.content, '{"verdict":"ok"}');
    assert.equal(json.usage.prompt_tokens, 100);
  });
  it('applies a rule with times only that often, then falls through', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await post(`${model.url}/chat/completions`, messages(0, 'flaky'))).status);
    assert.deepEqual(statuses, [503, 503, 200]);
  });
  it('sends a raw malformed body', async () => {
    const r = await post(`${model.url}/chat/completions`, messages(0, 'garbled'));
    assert.equal(r.status, 200);
    assert.equal(r.text, '{"choices": [');
  });
  it('records requests and 404s other paths', async () => {
    const before = model.requests.length;
    await post(`${model.url}/chat/completions`, messages(0, 'record me'));
    assert.equal(model.requests.length, before + 1);
    const last = model.requests.at(-1);
    assert.equal(last?.path, '/v1/chat/completions');
    assert.match(JSON.stringify(last?.body), /record me/);
    assert.equal((await post(`${model.url}/models`, {})).status, 404);
  });
  it('a client hanging up cancels a delay and close() does not wait for it', async () => {
    await assert.rejects(post(`${model.url}/chat/completions`, messages(0, 'slow'), 100), /timeout|socket hang up/);
  });
});

describe('scripted model double: Anthropic wire and reasoning', () => {
  let model: ScriptedModel;
  const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
  const anthropic = (text: string, extra: Record<string, unknown> = {}) => ({
    model: 'claude-test',
    max_tokens: 100,
    messages: [user(text)],
    ...extra,
  });
  before(async () => {
    model = await startScriptedModel({
      turns: [
        { tool_calls: [{ name: 'fs_read', arguments: { path: 'a' } }] },
        { content: 'read it', usage: { prompt_tokens: 30, completion_tokens: 4 } },
      ],
      match: [
        { when_contains: 'think-only', reasoning: 'so much to consider', finish_reason: 'length' },
        { when_contains: 'think-and-say', reasoning: 'brief thought', content: 'answer' },
        { when_contains: 'cut-off', content: 'partial', stop_reason: 'max_tokens' },
        { when_contains: 'err-401', http_status: 401 },
        { when_contains: 'err-429', http_status: 429, times: 1 },
        { when_contains: 'err-500', http_status: 500 },
        { when_contains: 'hang', content: 'late', delay_ms: 60_000 },
      ],
    });
  });
  after(async () => model.close());

  it('answers /v1/messages with content blocks, stop_reason and usage, and records the wire', async () => {
    const r = await post(`${model.url}/messages`, anthropic('hi'));
    assert.equal(r.status, 200);
    const json = r.json as { content: Array<Record<string, unknown>>; stop_reason: string; usage: unknown };
    assert.deepEqual(json.content, [
      { type: 'tool_use', id: json.content[0]?.id, name: 'fs_read', input: { path: 'a' } },
    ]);
    assert.match(String(json.content[0]?.id), /^toolu_/);
    assert.equal(json.stop_reason, 'tool_use');
    assert.deepEqual(json.usage, { input_tokens: 11, output_tokens: 7 });
    assert.equal(model.requests.at(-1)?.wire, 'anthropic');
    assert.equal(model.requests.at(-1)?.path, '/v1/messages');
  });
  it('counts tool_result blocks to pick the turn', async () => {
    const id = 'toolu_x';
    const body = {
      model: 'claude-test',
      max_tokens: 100,
      messages: [
        user('hi'),
        { role: 'assistant', content: [{ type: 'tool_use', id, name: 'fs_read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x', is_error: false }] },
      ],
    };
    const json = (await post(`${model.url}/messages`, body)).json as { content: unknown; usage: unknown };
    assert.deepEqual(json.content, [{ type: 'text', text: 'read it' }]);
    assert.deepEqual(json.usage, { input_tokens: 30, output_tokens: 4 });
  });
  it('streams the same message as SSE when stream is true', async () => {
    const r = await post(`${model.url}/messages`, anthropic('think-and-say', { stream: true }));
    const events = r.text
      .split('\n')
      .filter((l) => l.startsWith('event: '))
      .map((l) => l.slice(7));
    assert.deepEqual(events, [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    assert.match(r.text, /"type":"thinking_delta","thinking":"brief thought"/);
    assert.match(r.text, /"type":"signature_delta","signature":"sig-/);
    assert.match(r.text, /"type":"text_delta","text":"answer"/);
    assert.match(r.text, /"stop_reason":"end_turn"/);
  });
  it('reasoning: a thinking block with a signature, and a reasoning-only answer on both wires', async () => {
    const a = (await post(`${model.url}/messages`, anthropic('think-only'))).json as {
      content: Array<Record<string, unknown>>;
      stop_reason: string;
    };
    assert.equal(a.content.length, 1);
    assert.equal(a.content[0]?.type, 'thinking');
    assert.equal(a.content[0]?.thinking, 'so much to consider');
    assert.match(String(a.content[0]?.signature), /^sig-/);
    assert.equal(a.stop_reason, 'max_tokens', 'finish_reason length maps to max_tokens');
    const o = (await post(`${model.url}/chat/completions`, messages(0, 'think-only'))).json as {
      choices: Array<{ message: Record<string, unknown>; finish_reason: string }>;
      usage: { completion_tokens_details?: { reasoning_tokens: number } };
    };
    assert.equal(o.choices[0]?.message.content, null);
    assert.equal(o.choices[0]?.message.reasoning_content, 'so much to consider');
    assert.equal(o.choices[0]?.finish_reason, 'length');
    assert.ok((o.usage.completion_tokens_details?.reasoning_tokens ?? 0) > 0);
  });
  it('stop_reason max_tokens maps to finish_reason length on the OpenAI wire', async () => {
    const o = (await post(`${model.url}/chat/completions`, messages(0, 'cut-off'))).json as {
      choices: Array<{ finish_reason: string }>;
    };
    assert.equal(o.choices[0]?.finish_reason, 'length');
  });
  it('injects 401, 429 and 500 with each wire its own error body', async () => {
    const a401 = await post(`${model.url}/messages`, anthropic('err-401'));
    assert.equal(a401.status, 401);
    assert.deepEqual(a401.json, {
      type: 'error',
      error: { type: 'authentication_error', message: 'scripted HTTP 401' },
    });
    const a429 = await post(`${model.url}/messages`, anthropic('err-429'));
    assert.equal(a429.status, 429);
    assert.equal((a429.json as { error: { type: string } }).error.type, 'rate_limit_error');
    const a500 = await post(`${model.url}/messages`, anthropic('err-500'));
    assert.equal(a500.status, 500);
    assert.equal((a500.json as { error: { type: string } }).error.type, 'api_error');
    const o500 = await post(`${model.url}/chat/completions`, messages(0, 'err-500'));
    assert.deepEqual(o500.json, { error: { message: 'scripted HTTP 500' } });
  });
  it('a hang on the Anthropic wire is cut by the client', async () => {
    await assert.rejects(post(`${model.url}/messages`, anthropic('hang'), 100), /timeout|socket hang up/);
  });
  it('answers 400 to a request the real API would refuse', async () => {
    const bad = [
      { model: 'm', max_tokens: 10, messages: [user('a'), user('b')] },
      { model: 'm', max_tokens: 10, messages: [{ role: 'system', content: 'x' }] },
      {
        model: 'm',
        max_tokens: 10,
        messages: [
          user('a'),
          { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'nope', content: '' }],
          },
        ],
      },
      { model: 'm', max_tokens: 10, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [user('a')] },
    ];
    for (const body of bad) {
      const r = await post(`${model.url}/messages`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal((r.json as { error: { type: string } }).error.type, 'invalid_request_error');
    }
  });
});
