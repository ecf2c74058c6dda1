// McpConnection over stdio against the official reference server (@modelcontextprotocol/server-everything).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { McpServerSpec } from '../../../src/protocol/frames.js';
import { McpConnection } from '../../../src/tools/mcp/mcpConnection.js';
import { stdioEnv } from '../../../src/tools/mcp/mcpEnv.js';
import { waitUntil, within } from '../wait.js';

// Resolved like a package, so the path holds from test/ under tsx and from dist/test/ compiled alike.
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

type StdioSpec = Extract<McpServerSpec, { transport: 'stdio' }>;

const spec = (env: Record<string, string> = {}): StdioSpec => ({
  name: 'everything',
  transport: 'stdio',
  command: process.execPath,
  args: [everything, 'stdio'],
  env: stdioEnv({ ...process.env, AGENTD_TEST_SECRET: 'must-not-leak' }, env),
  cwd: null,
});

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('McpConnection over stdio (server-everything)', () => {
  let conn: McpConnection;
  before(async () => {
    conn = await within(McpConnection.connect(spec({ CONFIGURED_VAR: 'yes' })), 30_000, 'connect');
  });
  after(async () => {
    await conn?.close();
  });

  it('lists its tools', async () => {
    const names = (await within(conn.listTools(), 10_000, 'listTools')).map((t) => t.name);
    for (const name of ['echo', 'get-sum', 'get-structured-content', 'trigger-long-running-operation']) {
      assert.ok(names.includes(name), name);
    }
    const echo = (await conn.listTools()).find((t) => t.name === 'echo');
    assert.equal(echo?.inputSchema.type, 'object');
    assert.equal(echo?.annotations?.readOnlyHint, true);
  });

  it('echo and get-sum answer raw text (not JSON)', async () => {
    const echo = await conn.callTool('echo', { message: 'hi' }, { timeoutMs: 10_000 });
    assert.deepEqual(echo, { result: 'Echo: hi', is_error: false });
    const sum = await conn.callTool('get-sum', { a: 2, b: 3 }, { timeoutMs: 10_000 });
    assert.deepEqual(sum, { result: 'The sum of 2 and 3 is 5.', is_error: false });
  });

  it('get-structured-content: the structuredContent is the value', async () => {
    const answer = await conn.callTool('get-structured-content', { location: 'Chicago' }, { timeoutMs: 10_000 });
    assert.deepEqual(answer, {
      result: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
      is_error: false,
    });
  });

  it('renders an image part as [image content]', async () => {
    const answer = await conn.callTool('get-tiny-image', {}, { timeoutMs: 10_000 });
    assert.equal(answer.is_error, false);
    assert.match(String(answer.result), /\n\[image content\]\n/);
  });

  it('the server gets the configured env over the allow-list, and none of our other variables', async () => {
    const answer = await conn.callTool('get-env', {}, { timeoutMs: 10_000 });
    const env = answer.result as Record<string, string>;
    assert.equal(env.CONFIGURED_VAR, 'yes');
    assert.equal(env.PATH, process.env.PATH);
    assert.ok(!('AGENTD_TEST_SECRET' in env));
    assert.ok(!('NODE_OPTIONS' in env));
  });

  it('trigger-long-running-operation past a small timeout: a timeout error, returned at the timeout', async () => {
    const started = Date.now();
    const answer = await within(
      conn.callTool('trigger-long-running-operation', { duration: 10, steps: 5 }, { timeoutMs: 300 }),
      5_000,
      'the timed-out call',
    );
    const took = Date.now() - started;
    assert.deepEqual(answer, { result: 'tool timed out after 300 ms', is_error: true });
    assert.ok(took >= 290 && took < 1_500, `took ${took} ms`);
    // The connection is still usable afterwards.
    assert.equal((await conn.callTool('echo', { message: 'again' }, { timeoutMs: 10_000 })).result, 'Echo: again');
  });

  it('close() leaves no server process behind, and later calls are transport errors', async () => {
    const other = await within(McpConnection.connect(spec()), 30_000, 'connect');
    const pid = other.pid;
    assert.ok(pid !== null && isAlive(pid), 'premise: the server runs');
    await within(other.close(), 10_000, 'close');
    await waitUntil(() => !isAlive(pid), 3_000, 'the server process is gone');
    const answer = await other.callTool('echo', { message: 'x' }, { timeoutMs: 1_000 });
    assert.equal(answer.is_error, true);
    assert.match(String(answer.result), /^tool transport error: /);
  });

  it('a server that dies mid-call yields a transport error, not a throw', async () => {
    const other = await within(McpConnection.connect(spec()), 30_000, 'connect');
    const pid = other.pid as number;
    const call = other.callTool('trigger-long-running-operation', { duration: 20, steps: 2 }, { timeoutMs: 30_000 });
    setTimeout(() => process.kill(pid, 'SIGKILL'), 200);
    const answer = await within(call, 5_000, 'the call on a killed server');
    assert.equal(answer.is_error, true);
    assert.match(String(answer.result), /^tool transport error: .*Connection closed/);
    await other.close();
  });

  it('a command that does not exist: connect rejects with a short message', async () => {
    const bad: StdioSpec = { ...spec({ SECRET_VALUE: 'hunter2-secret' }), command: '/nonexistent/mcp-server' };
    await assert.rejects(within(McpConnection.connect(bad), 10_000, 'connect'), (err: Error) => {
      assert.equal(err.name, 'McpConnectError');
      assert.match(err.message, /ENOENT/);
      assert.ok(err.message.length < 200 && !err.message.includes('hunter2'));
      return true;
    });
  });

  it('a server that dies during initialize: the reason quotes its stderr, scrubbed of configured values', async () => {
    const dies: StdioSpec = {
      ...spec({ API_TOKEN: 'tok-do-not-show' }),
      args: ['-e', 'console.error("Error: login refused for tok-do-not-show"); process.exit(1)'],
    };
    await assert.rejects(within(McpConnection.connect(dies), 10_000, 'connect'), (err: Error) => {
      assert.equal(
        err.message,
        'the server closed the connection during initialize (stderr: Error: login refused for [redacted])',
      );
      return true;
    });
  });

  it('a process that never answers initialize: connect rejects at the connect timeout', async () => {
    const silent: StdioSpec = { ...spec(), args: ['-e', 'setInterval(() => {}, 1000)'] };
    const started = Date.now();
    await assert.rejects(
      within(McpConnection.connect(silent, { connectTimeoutMs: 300 }), 10_000, 'connect'),
      /no answer to initialize within 300 ms/,
    );
    assert.ok(Date.now() - started < 3_000);
  });
});
