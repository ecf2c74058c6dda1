// A real worker process with MCP servers: exit 6 before any model call, idempotency keys on the wire, JSON values,
// loop detection in front of the server, the turn deadline over a slow call, a stdio server.
import assert from 'node:assert/strict';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { encodeFrame } from '../../../src/protocol/frameCodec.js';
import type { McpServerSpec, SpawnPayload } from '../../../src/protocol/frames.js';
import type { Msg } from '../../../src/protocol/messages.js';
import { stdioEnv } from '../../../src/tools/mcp/mcpEnv.js';
import type { McpTestServer } from '../../doubles/mcpTestServer.js';
import { startMcpTestServer } from '../../doubles/mcpTestServer.js';
import type { Playbook, ScriptedModel } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { INTERNAL, makePayload, tool } from './turnHarness.js';
import type { Worker } from './workerProcessHarness.js';
import { spawnFrame, startWorker } from './workerProcessHarness.js';

const KEY = 'agent/idempotency_key';

async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A payload whose plan routes `tools` to the MCP server `t` at `url`. */
function mcpPayload(
  modelUrl: string,
  servers: McpServerSpec[],
  routes: Record<string, [string, string]>,
): SpawnPayload {
  const payload = makePayload(modelUrl, {
    turn: {
      tools: [...INTERNAL, ...Object.keys(routes)].map(tool),
      mcp_routes: routes,
      tool_meta: { 'agent/run_id': 'run-7' },
    },
  });
  payload.mcp_servers = servers;
  return payload;
}

const httpServer = (url: string): McpServerSpec => ({ name: 't', transport: 'http', url, headers: {} });

function toolMessages(messages: Msg[]): Array<Extract<Msg, { role: 'tool' }>> {
  return messages.filter((m): m is Extract<Msg, { role: 'tool' }> => m.role === 'tool');
}

describe('worker process with MCP servers', () => {
  let server: McpTestServer;
  const models: ScriptedModel[] = [];
  const spawned: Worker[] = [];
  before(async () => {
    server = await startMcpTestServer();
  });
  afterEach(() => {
    server.calls.length = 0;
  });
  after(async () => {
    for (const w of spawned) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    for (const m of models) await m.close();
    await server.close();
  });
  const model = async (playbook: Playbook): Promise<ScriptedModel> => {
    const m = await startScriptedModel(playbook);
    models.push(m);
    return m;
  };
  const run = (payload: SpawnPayload): Worker => {
    const w = startWorker();
    spawned.push(w);
    w.child.stdin.write(spawnFrame(payload));
    return w;
  };

  it('an unreachable server: failed "mcp \'<name>\': …", exit 6, and zero model requests', async () => {
    const m = await model({ turns: [{ content: 'never asked' }] });
    const down: McpServerSpec = {
      name: 'down',
      transport: 'http',
      url: `http://127.0.0.1:${await closedPort()}/mcp`,
      headers: { authorization: 'Bearer mcp-header-secret' },
    };
    const w = run(mcpPayload(m.url, [down], { echo: ['down', 'echo'] }));
    const failed = await w.waitFor((f) => f.type === 'failed');
    assert.equal(await w.exit(), 6, w.stderr());
    assert.ok(failed.type === 'failed');
    assert.match(failed.error, /^mcp 'down': .*ECONNREFUSED/);
    assert.equal(w.frames[0]?.type, 'ready');
    assert.ok(!w.frames.some((f) => f.type === 'turn_done'));
    assert.equal(m.requests.length, 0, 'no model call was made');
    assert.match(w.stderr(), /"event":"mcp.unreachable"/);
    assert.ok(!w.stderr().includes('mcp-header-secret'));
  });

  it('two MCP calls in one message: distinct idempotency keys with tool_meta, a JSON result stays JSON', async () => {
    const m = await model({
      turns: [
        {
          tool_calls: [
            { name: 'echo', arguments: { text: 'hi' } },
            { name: 'json_text', arguments: {} },
          ],
        },
        { content: 'done' },
      ],
    });
    const routes: Record<string, [string, string]> = { echo: ['t', 'echo'], json_text: ['t', 'json_text'] };
    const w = run(mcpPayload(m.url, [httpServer(server.url)], routes));
    const done = await w.waitFor((f) => f.type === 'turn_done');
    assert.equal(await w.exit(), 0, w.stderr());
    assert.ok(done.type === 'turn_done');
    assert.equal(done.turn.status, 'completed');
    assert.deepEqual(
      server.calls.map((c) => c.meta),
      [
        { 'agent/run_id': 'run-7', [KEY]: 'test/root#turn-1.0' },
        { 'agent/run_id': 'run-7', [KEY]: 'test/root#turn-1.1' },
      ],
    );
    const results = toolMessages(done.turn.messages);
    assert.deepEqual(
      results.map((r) => [r.name, r.content, r.is_error]),
      [
        ['echo', { text: 'hi' }, false],
        ['json_text', { items: [1, 2, 3], ok: true }, false],
      ],
    );
  });

  it('keys count calls across the whole turn, not per message', async () => {
    const m = await model({
      turns: [
        { tool_calls: [{ name: 'echo', arguments: { text: 'a' } }] },
        { tool_calls: [{ name: 'echo', arguments: { text: 'b' } }] },
        { content: 'done' },
      ],
    });
    const w = run(mcpPayload(m.url, [httpServer(server.url)], { echo: ['t', 'echo'] }));
    await w.waitFor((f) => f.type === 'turn_done');
    assert.equal(await w.exit(), 0, w.stderr());
    assert.deepEqual(
      server.calls.map((c) => c.meta?.[KEY]),
      ['test/root#turn-1.0', 'test/root#turn-1.1'],
    );
  });

  it('four identical MCP calls: loop_detected, exit 3, and the server saw only three', async () => {
    const m = await model({ turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'same' } }] }] });
    const w = run(mcpPayload(m.url, [httpServer(server.url)], { echo: ['t', 'echo'] }));
    const done = await w.waitFor((f) => f.type === 'turn_done');
    assert.equal(await w.exit(), 3, w.stderr());
    assert.ok(done.type === 'turn_done');
    assert.equal(done.turn.status, 'loop_detected');
    assert.equal(server.calls.length, 3);
  });

  it('a slow MCP call past the turn deadline ends the turn `deadline` promptly (exit 124)', async () => {
    const m = await model({ turns: [{ tool_calls: [{ name: 'slow', arguments: { ms: 30_000 } }] }, { content: 'x' }] });
    const payload = mcpPayload(m.url, [httpServer(server.url)], { slow: ['t', 'slow'] });
    // The deadline leaves room for the model's answer on a loaded machine, so it lands inside the slow call; 30 s of
    // call against an 8 s bound still shows the call was cut, not waited for.
    payload.limits.deadline_ms = 4_000;
    const started = Date.now();
    const w = run(payload);
    const done = await w.waitFor((f) => f.type === 'turn_done', 20_000);
    const took = Date.now() - started;
    assert.equal(await w.exit(), 124, w.stderr());
    assert.ok(done.type === 'turn_done');
    assert.equal(done.turn.status, 'deadline');
    assert.ok(took < 8_000, `turn_done after ${took} ms`);
    const [result] = toolMessages(done.turn.messages);
    assert.equal(result?.is_error, true);
    assert.match(String(result?.content), /deadline|timed out/);
    assert.equal(m.requests.length, 1, 'no model call after the deadline');
  });

  it('a server that never answers initialize: the turn deadline ends the connect ⇒ `deadline`, exit 124', async () => {
    const m = await model({ turns: [{ content: 'never asked' }] });
    const silent: McpServerSpec = {
      name: 'silent',
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      env: stdioEnv(process.env, {}),
      cwd: null,
    };
    const payload = mcpPayload(m.url, [silent], { echo: ['silent', 'echo'] });
    payload.limits.deadline_ms = 1_000;
    const w = run(payload);
    const done = await w.waitFor((f) => f.type === 'turn_done', 10_000);
    assert.equal(await w.exit(), 124, w.stderr());
    assert.ok(done.type === 'turn_done' && done.turn.status === 'deadline');
    assert.equal(m.requests.length, 0);
  });

  it('a cancel while servers connect ⇒ `cancelled`, exit 1, no model call', async () => {
    const m = await model({ turns: [{ content: 'never asked' }] });
    const silent: McpServerSpec = {
      name: 'silent',
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      env: stdioEnv(process.env, {}),
      cwd: null,
    };
    const w = run(mcpPayload(m.url, [silent], { echo: ['silent', 'echo'] }));
    await w.waitFor((f) => f.type === 'ready');
    await new Promise((resolve) => setTimeout(resolve, 300));
    w.child.stdin.write(encodeFrame({ type: 'cancel', reason: 'test' }));
    const done = await w.waitFor((f) => f.type === 'turn_done', 10_000);
    assert.equal(await w.exit(), 1, w.stderr());
    assert.ok(done.type === 'turn_done' && done.turn.status === 'cancelled');
    assert.equal(m.requests.length, 0);
  });

  it('a stdio server (server-everything): get-sum answers through the worker', async () => {
    const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
    const stdio: McpServerSpec = {
      name: 'ev',
      transport: 'stdio',
      command: process.execPath,
      args: [everything, 'stdio'],
      env: stdioEnv(process.env, {}),
      cwd: null,
    };
    const m = await model({ turns: [{ tool_calls: [{ name: 'sum', arguments: { a: 4, b: 5 } }] }, { content: 'ok' }] });
    const w = run(mcpPayload(m.url, [stdio], { sum: ['ev', 'get-sum'] }));
    const done = await w.waitFor((f) => f.type === 'turn_done', 30_000);
    assert.equal(await w.exit(10_000), 0, w.stderr());
    assert.ok(done.type === 'turn_done');
    assert.deepEqual(
      toolMessages(done.turn.messages).map((r) => r.content),
      ['The sum of 4 and 5 is 9.'],
    );
  });
});
