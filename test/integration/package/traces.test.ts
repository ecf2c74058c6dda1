// Traces over real processes (reference §3.4): an in-process OTLP/HTTP JSON receiver gets one trace per turn —
// the supervisor's invoke_agent span and, nested under it across the process boundary, the worker's chat and
// execute_tool spans with the GenAI attributes and token counts. With tracing off the worker loads no OTel module.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type CreateAgentOptions, createAgent } from '../../../src/agent.js';
import { silentLogger } from '../../../src/obs/log.js';
import type { SpawnPayload } from '../../../src/protocol/frames.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { makePayload } from '../../unit/worker/turnHarness.js';
import { spawnFrame } from '../../unit/worker/workerProcessHarness.js';
import { waitUntil, within } from '../wait.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
}

function attr(span: OtlpSpan | undefined, key: string): string | number | undefined {
  const v = span?.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue === undefined ? undefined : Number(v.intValue));
}

/** Not /v1/traces: the configured endpoint is used as is, so spans arrive only if nothing is appended to it. */
const TRACES_PATH = '/collector/traces';

/** An OTLP/HTTP JSON receiver: every span posted to its traces URL. */
async function startReceiver(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      if (req.url === TRACES_PATH) {
        const doc = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
        for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${TRACES_PATH}`;
  return { url, spans, close: () => new Promise((r) => server.close(() => r())) };
}

const workerMain = fileURLToPath(new URL('../../../src/worker/main.js', import.meta.url));
const importLog = fileURLToPath(new URL('../../fixtures/importLog.js', import.meta.url));

/** Runs one worker turn on `payload` with every module it resolves logged; returns the logged URLs. */
async function modulesOfTurn(payload: SpawnPayload): Promise<string[]> {
  const log = join(mkdtempSync(join(tmpdir(), 'agentd-imports-')), 'imports.log');
  const child = spawn(process.execPath, ['--import', importLog, workerMain], {
    env: { ...process.env, AGENTD_IMPORT_LOG: log },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout.resume();
  child.stdin.write(spawnFrame(payload));
  const code = await within(new Promise((r) => child.once('exit', r)), 20_000, 'the worker turn');
  assert.equal(code, 0);
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
}

describe('traces', () => {
  let model: ScriptedModel;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const calls = join(mkdtempSync(join(tmpdir(), 'agentd-traces-')), 'calls.log');
  before(async () => {
    receiver = await startReceiver();
    model = await startScriptedModel({
      turns: [{ content: 'done', usage: { prompt_tokens: 30, completion_tokens: 4 } }],
      match: [
        { when_contains: 'ponder this', times: 1, tool_calls: [{ name: 'think', arguments: { prompt: 'why 7?' } }] },
        { when_contains: 'why 7?', times: 1, content: '{"answer": "because"}' },
        { when_contains: 'slow first', times: 1, content: 'first', delay_ms: 1_500 },
        {
          when_contains: 'trace me',
          times: 1,
          tool_calls: [{ name: 'lookup_order', arguments: { order: 'ORD-2', log: calls } }],
          usage: { prompt_tokens: 20, completion_tokens: 6 },
        },
      ],
    });
  });
  after(async () => {
    await model.close();
    await receiver.close();
  });

  /** An agent on the scripted model, tracing to the receiver. */
  const tracingAgent = (more: Partial<CreateAgentOptions> = {}) =>
    createAgent({
      intelligence: model.url,
      model: 'test-model',
      store: 'memory',
      config: { env: {}, values: { observability: { otlp_endpoint: receiver.url } } },
      log: silentLogger,
      ...more,
    });

  it('one turn with a tool round is one trace: turn → chat → execute_tool → chat, with GenAI attributes', async () => {
    const agent = await tracingAgent({ toolsModule: new URL('../../fixtures/definedTools.js', import.meta.url) });
    try {
      const run = await agent.run('trace me');
      assert.equal((await within(run.result, 30_000, 'the turn')).status, 'completed');
    } finally {
      await agent.close(); // exports the supervisor's spans
    }
    await waitUntil(() => receiver.spans.some((s) => s.name === 'invoke_agent'), 10_000, 'the turn span');
    const turn = receiver.spans.find((s) => s.name === 'invoke_agent');
    // The message's accept span opens the trace; the turn starts under it.
    const accept = receiver.spans.find((s) => s.name === 'accept');
    assert.equal(accept?.traceId, turn?.traceId, 'accept and turn are one trace');
    assert.equal(turn?.parentSpanId, accept?.spanId);
    assert.equal(attr(accept, 'gen_ai.conversation.id'), 'root');
    const children = receiver.spans
      .filter((s) => s.traceId === turn?.traceId && s !== turn && s !== accept)
      .sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
    assert.deepEqual(
      children.map((s) => s.name),
      ['chat test-model', 'execute_tool lookup_order', 'chat test-model'],
    );
    assert.ok(
      children.every((s) => s.parentSpanId === turn?.spanId),
      'nested under the turn span',
    );
    const [first, tool, second] = children;
    assert.equal(attr(first, 'gen_ai.operation.name'), 'chat');
    assert.equal(attr(first, 'gen_ai.request.model'), 'test-model');
    assert.equal(attr(first, 'gen_ai.provider.name'), 'openai');
    assert.equal(attr(first, 'gen_ai.usage.input_tokens'), 20);
    assert.equal(attr(first, 'gen_ai.usage.output_tokens'), 6);
    assert.equal(attr(second, 'gen_ai.usage.input_tokens'), 30);
    assert.equal(attr(tool, 'gen_ai.tool.name'), 'lookup_order');
    assert.equal(attr(turn, 'gen_ai.usage.input_tokens'), 50);
  });

  it("a think child's model call is in its turn's trace, under the turn span", async () => {
    const agent = await tracingAgent();
    const isTurn = (s: OtlpSpan) => s.name === 'invoke_agent' && attr(s, 'gen_ai.conversation.id') === 'thinker';
    let turn: OtlpSpan | undefined;
    try {
      const run = await agent.run('ponder this', { conversation: 'thinker' });
      assert.equal((await within(run.result, 30_000, 'the turn')).status, 'completed');
      // Waited for before close: a worker gone idle exports its batch later, and close() would kill it first.
      await waitUntil(() => receiver.spans.some(isTurn), 10_000, 'the turn span');
      turn = receiver.spans.find(isTurn);
      // Before, a think child carried no trace context: its chat span was in no trace at all.
      await waitUntil(
        () => receiver.spans.filter((s) => s.traceId === turn?.traceId && s.name === 'chat test-model').length === 3,
        20_000,
        "the turn's two model calls and the think child's one",
      );
    } finally {
      await agent.close();
    }
    const under = receiver.spans.filter((s) => s.traceId === turn?.traceId && s.parentSpanId === turn?.spanId);
    assert.deepEqual(under.map((s) => s.name).sort(), [
      'chat test-model',
      'chat test-model',
      'chat test-model',
      'execute_tool think',
    ]);
  });

  it('two messages queued behind a slow turn each start their turn under their own accept span', async () => {
    const agent = await tracingAgent();
    const runs = [];
    try {
      runs.push(await agent.run('slow first', { conversation: 'queue' }));
      runs.push(await agent.run('queued second', { conversation: 'queue' }));
      runs.push(await agent.run('queued third', { conversation: 'queue' }));
      const results = await within(Promise.all(runs.map((r) => r.result)), 40_000, 'the three turns');
      assert.deepEqual(
        results.map((r) => r.status),
        ['completed', 'completed', 'completed'],
      );
      await agent.close();
      // Keyed by conversation, each turn would start under the latest accept span (the third message's).
      for (const [i, run] of runs.entries()) {
        const turnId = results[i]?.turnId;
        const isTurn = (s: OtlpSpan) =>
          s.name === 'invoke_agent' &&
          attr(s, 'agentd.turn') === turnId &&
          attr(s, 'gen_ai.conversation.id') === 'queue';
        await waitUntil(() => receiver.spans.some(isTurn), 10_000, `turn ${i + 1}'s span`);
        const accept = receiver.spans.find((s) => s.name === 'accept' && attr(s, 'agentd.inbox_event') === run.id);
        const turn = receiver.spans.find(isTurn);
        assert.ok(accept, `message ${i + 1}'s accept span`);
        assert.equal(turn?.parentSpanId, accept.spanId, `turn ${i + 1} is under its own message's accept span`);
        assert.equal(turn?.traceId, accept.traceId);
      }
    } finally {
      await agent.close();
    }
  });

  it('with tracing off the worker loads no OpenTelemetry module; with a trace context it does', async () => {
    const off = await modulesOfTurn(makePayload(model.url));
    assert.ok(
      off.some((u) => u.endsWith('/worker/roundLoop.js')),
      'the recorder sees the worker modules',
    );
    assert.deepEqual(
      off.filter((u) => u.includes('@opentelemetry')),
      [],
    );
    // The premise: the same turn with a trace context does load the SDK, so the recorder would have seen it.
    const payload = makePayload(model.url);
    payload.telemetry.trace = { traceparent: '', endpoint: receiver.url };
    const on = await modulesOfTurn(payload);
    assert.ok(on.some((u) => u.includes('@opentelemetry/sdk-trace-base')));
  });
});
