// Traces are best effort (reference §3.4): a collector that is down, or one that accepts and never answers, costs
// neither a turn nor a stop. The turn's turn_done goes before its spans' export; a stop logs one
// `trace.export_failed` and returns instead of throwing.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createAgent } from '../../../src/agent.js';
import { createLogger } from '../../../src/obs/log.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { within } from '../wait.js';

/** A collector that reads each request and never answers; it notes every request its client gave up on. */
async function startSilentCollector() {
  const state = { received: 0, givenUp: 0 };
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    req.resume();
    state.received++;
    held.add(res);
    req.socket.once('close', () => {
      if (held.delete(res)) state.givenUp++;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    for (const res of held) res.socket?.destroy();
    held.clear();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return { url, state, close };
}

/** An agent tracing to `endpoint`, its events kept. */
async function tracingAgent(model: ScriptedModel, endpoint: string, lines: string[]) {
  return createAgent({
    intelligence: model.url,
    model: 'test-model',
    store: 'memory',
    config: { env: {}, values: { observability: { otlp_endpoint: endpoint } } },
    log: createLogger({ level: 'info', write: (line) => void lines.push(line) }),
  });
}

/** The supervisor's trace.export_failed lines (a worker's own reach the same log, from its stderr). */
const failures = (lines: string[]) =>
  lines.filter((l) => l.includes('"event":"trace.export_failed"') && !l.includes('"comp":"worker"'));

describe('trace export failures', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'fine', usage: { prompt_tokens: 3, completion_tokens: 1 } }],
    });
  });
  after(async () => model.close());

  it('a collector that never answers does not hold the turn: turn_done goes first, the export after', async () => {
    const collector = await startSilentCollector();
    const lines: string[] = [];
    const agent = await tracingAgent(model, collector.url, lines);
    try {
      const run = await agent.run('hello');
      const result = await within(run.result, 30_000, 'the turn');
      assert.equal(result.status, 'completed');
      // The premise: a worker that exported before turn_done would have waited for its export request to be given
      // up (the exporter's timeout) before reporting, so a request given up would already be counted here.
      assert.equal(collector.state.givenUp, 0, 'no export was given up before the turn was reported');
    } finally {
      await within(agent.close(), 20_000, 'close with a silent collector');
      await collector.close();
    }
    assert.equal(failures(lines).length <= 1, true, 'at most one trace.export_failed from the stop');
  });

  it('a collector that is down: close() resolves and logs one trace.export_failed', async () => {
    // Nothing listens on port 1: every export is refused. Before the fix close() rejected with the exporter's error.
    const lines: string[] = [];
    const agent = await tracingAgent(model, 'http://127.0.0.1:1', lines);
    const run = await agent.run('hello');
    assert.equal((await within(run.result, 30_000, 'the turn')).status, 'completed');
    await assert.doesNotReject(within(agent.close(), 20_000, 'close with a down collector'));
    assert.equal(failures(lines).length, 1, lines.join(''));
  });
});
