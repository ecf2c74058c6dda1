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
