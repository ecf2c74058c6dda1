// MCP through the real binary: a stdio server (the official server-everything) and an HTTP test server, the
// permission check, loop detection, deadlines, and an unreachable server.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { type McpTestServer, startMcpTestServer } from '../doubles/mcpTestServer.js';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

const EVERYTHING = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

function configFile(dir: string, yaml: string): string {
  const file = join(dir, 'agent.yaml');
  writeFileSync(file, yaml);
  return file;
}

async function rootMessages(dir: string) {
  const store = new SqliteStore(dir);
  try {
    return (await store.conversations.load()).map((s) => s.conversation).find((c) => c.id === 'root')?.messages ?? [];
  } finally {
    await store.close();
  }
}

describe('MCP tools in a job', () => {
  let model: ScriptedModel;
  let server: McpTestServer;
  before(async () => {
    server = await startMcpTestServer();
    model = await startScriptedModel({
      turns: [{ content: 'done' }],
      match: [
        {
          when_contains: 'mix tools',
          times: 1,
          tool_calls: [
            { name: 'get-structured-content', arguments: { location: 'Chicago' } },
            { name: 'memory.set', arguments: { key: 'k', value: 1 } },
            { name: 'test.echo', arguments: { text: 'one' } },
            { name: 'test.echo', arguments: { text: 'two' } },
          ],
        },
        {
          when_contains: 'policy check',
          times: 1,
          tool_calls: [
            { name: 'echo', arguments: { text: 'allowed' } },
            { name: 'echo', arguments: { text: 'blocked' } },
          ],
        },
        { when_contains: 'same call', tool_calls: [{ name: 'echo', arguments: { text: 'again' } }] },
        { when_contains: 'capped call', times: 1, tool_calls: [{ name: 'slow', arguments: { ms: 60_000 } }] },
        { when_contains: 'slow tool', tool_calls: [{ name: 'slow', arguments: { ms: 60_000 } }] },
      ],
    });
  });
  after(async () => {
    await model.close();
    await server.close();
  });

  it('stdio and HTTP MCP tools and an internal tool in one message: JSON stays JSON, keys differ', async () => {
    const dir = tempStateDir();
    const file = configFile(
      dir,
      `mcp:\n  servers:\n    everything: {command: "${process.execPath}", args: ["${EVERYTHING}", "stdio"]}\n` +
        `    test: {url: "${server.url}"}\n`,
    );
    const run = await runAgentd(['--config', file, '--intelligence', model.url, '--prompt', 'mix tools'], {
      env: { AGENTD_STATE_DIR: dir },
      timeoutMs: 60_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'done\n');
    const tools = (await rootMessages(dir)).filter((m) => m.role === 'tool');
    assert.equal(tools.length, 4);
    const structured = tools.find((m) => m.role === 'tool' && m.name === 'get-structured-content');
    assert.ok(structured?.role === 'tool' && !structured.is_error);
    assert.equal(typeof structured.content, 'object', 'a JSON result stays JSON');
    assert.equal((structured.content as { conditions?: string }).conditions !== undefined, true);
    const keys = server.calls.map((c) => c.meta?.['agent/idempotency_key']);
    assert.equal(keys.length, 2);
    // Keyed by the message (its inbox id), the same in every run of its turn (the tool journal, issue 19).
    assert.match(String(keys[0]), /^agentd\/root#[0-9A-Z]{26}\.\d+$/);
    assert.notEqual(keys[0], keys[1]);
    const last = model.requests.at(-1)?.body as { messages: Array<{ role: string }> };
    assert.equal(last.messages.filter((m) => m.role === 'tool').length, 4, 'all four results reach the model');
  });

  it('a deny rule stops a call before the server sees it; an allow rule before it lets another through', async () => {
    const dir = tempStateDir();
    const before = server.calls.length;
    const file = configFile(
      dir,
      `mcp:\n  servers:\n    test: {url: "${server.url}"}\nsecurity:\n  policies:\n` +
        '    - {name: allow-allowed, match: {tool: echo, args: {text: allowed}}, action: allow}\n' +
        '    - {name: no-echo, match: {tool: echo}, action: deny}\n',
    );
    const run = await runAgentd(['--config', file, '--intelligence', model.url, '--prompt', 'policy check'], {
      env: { AGENTD_STATE_DIR: dir },
    });
    assert.equal(run.code, 0, run.stderr);
    const seen = server.calls.slice(before).map((c) => (c.args as { text: string }).text);
    assert.deepEqual(seen, ['allowed']);
    const verdicts = eventsNamed(run, 'tool.policy').map((e) => `${e.rule}:${e.action}`);
    assert.deepEqual(verdicts, ['allow-allowed:allow', 'no-echo:deny']);
    const denied = (await rootMessages(dir)).find((m) => m.role === 'tool' && m.is_error);
    assert.match(String(denied?.role === 'tool' ? denied.content : ''), /no-echo/);
  });

  it('four identical MCP calls end loop_detected; the fourth never reaches the server', async () => {
    const before = server.calls.length;
    const run = await runAgentd(['--mcp', `test=${server.url}`, '--intelligence', model.url, '--prompt', 'same call'], {
      env: { AGENTD_STATE_DIR: tempStateDir() },
    });
    assert.equal(run.code, 3, run.stderr);
    assert.equal(server.calls.length - before, 3);
  });

  it('a slow MCP call past --deadline ends the turn at the deadline (exit 124) without the backstop', async () => {
    const run = await runAgentd(
      ['--mcp', `test=${server.url}`, '--intelligence', model.url, '--prompt', 'slow tool', '--deadline', '1s'],
      { env: { AGENTD_STATE_DIR: tempStateDir() } },
    );
    assert.equal(run.code, 124, run.stderr);
    assert.equal(eventsNamed(run, 'turn.done', 'worker')[0]?.status, 'deadline');
    assert.equal(eventsNamed(run, 'turn.kill').length, 0, 'the worker ended itself; no kill was needed');
  });

  it('a lowered call cap gives the model a timeout error, and the turn goes on', async () => {
    const dir = tempStateDir();
    const run = await runAgentd(
      ['--mcp', `test=${server.url}`, '--intelligence', model.url, '--prompt', 'capped call'],
      { env: { AGENTD_STATE_DIR: dir, AGENTD_MCP_CALL_TIMEOUT: '300ms' } },
    );
    assert.equal(run.code, 0, run.stderr);
    const timedOut = (await rootMessages(dir)).find((m) => m.role === 'tool');
    assert.ok(timedOut?.role === 'tool' && timedOut.is_error);
    assert.match(String(timedOut.content), /timed out after 300 ms/);
  });

  it('an unreachable MCP server exits 6 before any model call', async () => {
    const before = model.requests.length;
    const run = await runAgentd(
      ['--mcp', 'gone=http://127.0.0.1:9/mcp', '--intelligence', model.url, '--prompt', 'x'],
      {
        env: { AGENTD_STATE_DIR: tempStateDir() },
      },
    );
    assert.equal(run.code, 6, run.stderr);
    assert.match(run.stderr, /mcp 'gone'/);
    assert.equal(model.requests.length, before);
  });

  it('--capabilities prints the tools and servers as JSON without opening the store', async () => {
    const dir = tempStateDir();
    const run = await runAgentd(['--mcp', `test=${server.url}`, '--capabilities'], {
      env: { AGENTD_STATE_DIR: join(dir, 'never') },
    });
    assert.equal(run.code, 0, run.stderr);
    const caps = JSON.parse(run.stdout) as { internal_tools: string[]; mcp: Record<string, { tools: string[] }> };
    assert.ok(caps.internal_tools.includes('memory.get'));
    assert.ok(caps.mcp.test?.tools.includes('echo'));
  });
});
