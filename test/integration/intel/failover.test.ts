// callModel against scripted models on both wires: failover, the breaker and its events, fatal 401s, the fallback
// model (without reasoning parts), and an abort of a hanging call.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAbortError } from '../../../src/intel/httpPost.js';
import { callModel } from '../../../src/intel/modelClient.js';
import type { ModelRequest } from '../../../src/intel/modelRequest.js';
import { createLogger } from '../../../src/obs/log.js';
import type { Dialect, IntelligenceSpec } from '../../../src/protocol/frames.js';
import type { Msg } from '../../../src/protocol/messages.js';
import type { Playbook, ScriptedModel } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { within } from '../wait.js';

const TOKEN = 'sk-failover-secret-token-77';
const T = { timeout: 15_000 };
const fast = { backoffMs: [10, 20] };
const never = new AbortController().signal;

const specFor = (dialect: Dialect, endpoints: string[], over: Partial<IntelligenceSpec> = {}): IntelligenceSpec => ({
  endpoints,
  token: TOKEN,
  model: 'primary-model',
  dialect,
  headers: [],
  timeout_ms: 10_000,
  ...over,
});
const request = (text: string, over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'primary-model',
  messages: [{ role: 'user', text, ts: 1 }],
  system: 'sys',
  tools: [],
  maxTokens: 256,
  ...over,
});

function captureLog() {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', write: (l) => lines.push(l) });
  const events = (name: string) =>
    lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.event === name);
  return { lines, log, events };
}

async function models<const P extends readonly Playbook[]>(
  ...playbooks: P
): Promise<{ [K in keyof P]: ScriptedModel }> {
  return (await Promise.all(playbooks.map((p) => startScriptedModel(p)))) as { [K in keyof P]: ScriptedModel };
}

for (const dialect of ['openai', 'anthropic'] as const) {
  describe(`failover on the ${dialect} wire`, () => {
    let a: ScriptedModel;
    let b: ScriptedModel;
    let auth: ScriptedModel;
    before(async () => {
      [a, b, auth] = await models(
        { turns: [{ http_status: 503, times: 4 }, { content: 'from A' }] },
        { turns: [{ content: 'from B' }] },
        { turns: [{ http_status: 401, body: `{"error":{"message":"invalid key ${TOKEN}"}}` }] },
      );
    });
    after(async () => Promise.all([a, b, auth].map((m) => m.close())));

    it('A answering 503 and B answering ⇒ B; the breaker opens, probes after the cooldown, and closes', T, async () => {
      let now = 1_000_000;
      const { log, events, lines } = captureLog();
      const spec = specFor(dialect, [a.url, b.url]);
      const call = (text: string) =>
        within(callModel(spec, request(text), never, { ...fast, log, now: () => now }), 5000, text);

      assert.equal((await call('one')).text, 'from B');
      assert.equal(a.requests.length, 3, 'the same endpoint is tried 1 + 2 times');
      assert.equal(b.requests.length, 1);
      assert.deepEqual(
        events('intel.health').map((e) => [e.endpoint, e.state]),
        [[0, 'open']],
      );

      assert.equal((await call('two')).text, 'from B');
      assert.equal(a.requests.length, 3, 'an open endpoint is skipped');

      now += 5_000;
      assert.equal((await call('three')).text, 'from B');
      assert.equal(a.requests.length, 4, 'half-open: exactly one probe, never retried in place');

      now += 10_000; // the cooldown doubled after the failed probe
      const back = await call('four');
      assert.equal(back.text, 'from A', 'a successful probe makes A the primary again');
      assert.equal(back.model, 'primary-model');
      assert.equal((await call('five')).text, 'from A', 'sticky primary');
      assert.deepEqual(
        events('intel.health').map((e) => [e.endpoint, e.state]),
        [
          [0, 'open'],
          [0, 'half_open'],
          [0, 'open'],
          [0, 'half_open'],
          [0, 'closed'],
        ],
      );
      for (const e of events('intel.health')) assert.match(String(e.host), /^127\.0\.0\.1:\d+$/);
      const all = lines.join('');
      assert.ok(!all.includes(TOKEN), 'no token in any event');
      assert.ok(!all.includes('http://'), 'no endpoint URL in any event');
    });

    it('a 401 ⇒ exactly one request, no failover, and an intel: error without the token', T, async () => {
      const before = b.requests.length;
      const err = await within(
        callModel(specFor(dialect, [auth.url, b.url]), request('x'), never, fast).catch((e: Error) => e),
        5000,
        '401',
      );
      assert.ok(err instanceof Error);
      assert.match(err.message, /^intel: HTTP 401 from 127\.0\.0\.1:\d+/);
      assert.ok(!err.message.includes(TOKEN), err.message);
      assert.equal(auth.requests.length, 1);
      assert.equal(b.requests.length, before, 'a fatal error never fails over');
      const headers = auth.requests[0]?.headers;
      const sent = dialect === 'anthropic' ? headers?.['x-api-key'] : headers?.authorization;
      assert.equal(sent, dialect === 'anthropic' ? TOKEN : `Bearer ${TOKEN}`, 'premise: the token was sent');
    });

    it('a hang is aborted promptly by the signal', T, async () => {
      const slow = await startScriptedModel({ turns: [{ content: 'late', delay_ms: 60_000 }] });
      try {
        const controller = new AbortController();
        const started = Date.now();
        const pending = callModel(specFor(dialect, [slow.url]), request('hang'), controller.signal, fast);
        setTimeout(() => controller.abort(), 100);
        await assert.rejects(within(pending, 5000, 'abort'), (e) => isAbortError(e));
        assert.ok(Date.now() - started < 3000);
        assert.equal(slow.requests.length, 1, 'premise: the request reached the model');
      } finally {
        await slow.close();
      }
    });
  });
}

describe('fallback model', () => {
  let down: ScriptedModel;
  let fallback: ScriptedModel;
  before(async () => {
    [down, fallback] = await models({ turns: [{ http_status: 500 }] }, { turns: [{ content: 'fallback answer' }] });
  });
  after(async () => Promise.all([down, fallback].map((m) => m.close())));

  it('all endpoints down ⇒ the fallback model answers, and no reasoning parts are sent to it', T, async () => {
    const { log, events } = captureLog();
    const calling: Msg = {
      role: 'assistant',
      text: '',
      tool_calls: [{ id: 'toolu_1', name: 'f', arguments: {} }],
      ts: 1,
    };
    const thinking = { type: 'thinking', thinking: 'secret plan', signature: 'sig-primary' };
    const reasoning = new Map<Msg, unknown>([
      [calling, { model: 'primary-model', dialect: 'anthropic', parts: [thinking] }],
    ]);
    const messages: Msg[] = [
      { role: 'user', text: 'go', ts: 1 },
      calling,
      { role: 'tool', id: 'toolu_1', name: 'f', content: 'ok', is_error: false, ts: 1 },
    ];
    const fb = specFor('anthropic', [fallback.url], { model: 'fallback-model', token: 'sk-fallback-token' });
    const spec = specFor('anthropic', [down.url, 'http://127.0.0.1:9/v1'], {
      kind: 'reasoning',
      reasoning: { effort: 'low' },
      fallback: fb,
    });
    const r = await within(
      callModel(spec, request('go', { messages, reasoning }), never, { ...fast, log }),
      5000,
      'fb',
    );
    assert.equal(r.text, 'fallback answer');
    assert.equal(r.model, 'fallback-model');
    const primaryBody = JSON.stringify(down.requests[0]?.body);
    assert.ok(primaryBody.includes('sig-primary'), 'premise: the primary got its own thinking back');
    const sent = fallback.requests[0]?.body as { model: string; thinking?: unknown; messages: unknown[] };
    assert.equal(sent.model, 'fallback-model');
    assert.ok(!JSON.stringify(sent).includes('sig-primary'), 'no reasoning parts to the fallback');
    assert.ok(!JSON.stringify(sent).includes('secret plan'));
    assert.equal(sent.thinking, undefined, 'the fallback has no effort of its own');
    assert.equal(
      fallback.requests[0]?.headers['x-api-key'],
      'sk-fallback-token',
      'the fallback dials with its own token',
    );
    assert.deepEqual(
      events('intel.fallback').map((e) => [e.from, e.to]),
      [['primary-model', 'fallback-model']],
    );
  });

  it('all endpoints down without a fallback ⇒ intel: all endpoints failed', T, async () => {
    const spec = specFor('openai', [down.url, 'http://127.0.0.1:9/v1']);
    await assert.rejects(within(callModel(spec, request('x'), never, fast), 5000, 'down'), {
      message: /^intel: all 2 endpoints failed; last: cannot reach 127\.0\.0\.1:9/,
    });
  });
});
