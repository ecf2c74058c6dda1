// McpConnection over Streamable HTTP against the in-repo MCP test server (and its CLI, for a real kill).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { McpServerSpec } from '../../../src/protocol/frames.js';
import { McpConnection } from '../../../src/tools/mcp/mcpConnection.js';
import type { McpTestServer } from '../../doubles/mcpTestServer.js';
import { startMcpTestServer } from '../../doubles/mcpTestServer.js';
import { waitUntil, within } from '../wait.js';

const httpSpec = (url: string, headers: Record<string, string> = {}): McpServerSpec => ({
  name: 'test',
  transport: 'http',
  url,
  headers,
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('McpConnection over Streamable HTTP (mcpTestServer)', () => {
  let server: McpTestServer;
  let conn: McpConnection;
  before(async () => {
    server = await startMcpTestServer();
    conn = await within(McpConnection.connect(httpSpec(server.url, { authorization: 'Bearer t' })), 10_000, 'connect');
  });
  after(async () => {
    await conn?.close();
    await server?.close();
  });

  it('echo: the structuredContent is the value, and _meta reaches the wire', async () => {
    const meta = { 'agent/idempotency_key': 'inst/ctx#turn-1.0', 'agent/run_id': 'r1' };
    const answer = await conn.callTool('echo', { text: 'hi' }, { timeoutMs: 5_000, meta });
    assert.deepEqual(answer, { result: { text: 'hi' }, is_error: false });
    assert.deepEqual(server.calls.at(-1), { name: 'echo', args: { text: 'hi' }, meta });
  });

  it('failing: an isError result is carried with its text', async () => {
    const answer = await conn.callTool('failing', {}, { timeoutMs: 5_000 });
    assert.deepEqual(answer, { result: 'the failing tool failed', is_error: true });
  });

  it('json_text: a JSON text part becomes a JSON value', async () => {
    const answer = await conn.callTool('json_text', {}, { timeoutMs: 5_000 });
    assert.deepEqual(answer, { result: { items: [1, 2, 3], ok: true }, is_error: false });
  });

  it('first_call_hangs: the first call times out at its timeout, the next one works', async () => {
    const started = Date.now();
    const first = await within(conn.callTool('first_call_hangs', {}, { timeoutMs: 250 }), 5_000, 'first call');
    const took = Date.now() - started;
    assert.deepEqual(first, { result: 'tool timed out after 250 ms', is_error: true });
    assert.ok(took >= 240 && took < 1_500, `took ${took} ms`);
    const second = await within(conn.callTool('first_call_hangs', {}, { timeoutMs: 5_000 }), 6_000, 'second call');
    assert.deepEqual(second, { result: { ok: true }, is_error: false });
  });

  it('slow: finishes inside its timeout, times out past it', async () => {
    assert.deepEqual(await conn.callTool('slow', { ms: 20 }, { timeoutMs: 5_000 }), {
      result: { slept: 20 },
      is_error: false,
    });
    const started = Date.now();
    const late = await within(conn.callTool('slow', { ms: 10_000 }, { timeoutMs: 200 }), 5_000, 'slow call');
    assert.deepEqual(late, { result: 'tool timed out after 200 ms', is_error: true });
    assert.ok(Date.now() - started < 1_500);
  });

  it("the caller's signal aborts a call at once, with the caller's reason", async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('the turn deadline passed')), 100);
    const answer = await within(
      conn.callTool('slow', { ms: 10_000 }, { timeoutMs: 10_000, signal: ctl.signal }),
      3_000,
      'aborted call',
    );
    assert.deepEqual(answer, { result: 'tool call aborted: the turn deadline passed', is_error: true });
  });

  it('a malformed result is a transport error, and the connection goes on', async () => {
    const answer = await conn.callTool('garbage', {}, { timeoutMs: 5_000 });
    assert.deepEqual(answer, { result: 'tool transport error: invalid response from the server', is_error: true });
    assert.equal((await conn.callTool('echo', { text: 'still' }, { timeoutMs: 5_000 })).is_error, false);
  });

  it('arguments that are not an object are refused before the wire', async () => {
    const before = server.calls.length;
    const answer = await conn.callTool('echo', ['a'], { timeoutMs: 5_000 });
    assert.deepEqual(answer, { result: 'tool arguments must be a JSON object', is_error: true });
    assert.equal(server.calls.length, before);
  });

  it('add_tool: notifications/tools/list_changed fires and the new tool is listed', async () => {
    let changed = 0;
    const off = conn.onToolsChanged(() => changed++);
    await conn.callTool('add_tool', { name: 'late_tool' }, { timeoutMs: 5_000 });
    await waitUntil(() => changed > 0, 5_000, 'list_changed arrives');
    off();
    const names = (await conn.listTools()).map((t) => t.name);
    assert.ok(names.includes('late_tool'));
    assert.ok(names.includes('echo'));
  });

  it('an unreachable URL: connect rejects with a short message and no header value', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const spec = httpSpec(url, { authorization: 'Bearer super-secret-token' });
    await assert.rejects(within(McpConnection.connect(spec), 10_000, 'connect'), (err: Error) => {
      assert.match(err.message, /ECONNREFUSED/);
      assert.ok(err.message.length < 200 && !err.message.includes('super-secret-token'), err.message);
      return true;
    });
  });
});

describe('McpConnection when the HTTP server process is killed mid-call', () => {
  // Under tsx this file is .ts and the CLI runs from source; compiled, both live under dist/.
  const compiled = import.meta.url.endsWith('.js');
  const cli = fileURLToPath(new URL(`../../doubles/mcpTestServerCli.${compiled ? 'js' : 'ts'}`, import.meta.url));
  const cliArgs = compiled ? [cli] : ['--import', 'tsx', cli];

  it('yields a transport error at once, not a throw and not a hang until the timeout', async () => {
    const addrFile = join(mkdtempSync(join(tmpdir(), 'agentd-mcp-')), 'addr');
    const child = spawn(process.execPath, [...cliArgs, '--addr-file', addrFile], { stdio: 'ignore' });
    try {
      await waitUntil(() => existsSync(addrFile), 15_000, 'the server writes its address');
      const conn = await within(McpConnection.connect(httpSpec(readFileSync(addrFile, 'utf8'))), 10_000, 'connect');
      const started = Date.now();
      const call = conn.callTool('slow', { ms: 30_000 }, { timeoutMs: 30_000 });
      setTimeout(() => child.kill('SIGKILL'), 200);
      const answer = await within(call, 5_000, 'the call on a killed server');
      assert.equal(answer.is_error, true);
      assert.match(String(answer.result), /^tool transport error: /);
      assert.ok(Date.now() - started < 3_000);
      await conn.close();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
