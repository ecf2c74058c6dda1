// Reload over a real runtime (SQLite store, A2A listener, an MCP server over HTTP, worker processes): what a reload
// changes takes effect — MCP servers connect and close, principals authenticate the next request, instruction files
// reach the next turn's prompt. Each case first shows the premise (before the reload it is not so).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { startRuntime } from '../../../src/runtime/startRuntime.js';
import { startMcpTestServer } from '../../doubles/mcpTestServer.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { JSON_V1, rawRequest, rpc } from '../a2a/listenerHarness.js';
import { waitUntil, within } from '../wait.js';

describe('a reload takes effect', { timeout: 60_000 }, () => {
  it('connects an added MCP server and closes a removed one, takes new principals and instruction files', async () => {
    const [model, mcp] = [await startScriptedModel({ turns: [{ content: 'ok' }] }), await startMcpTestServer()];
    const dir = mkdtempSync(join(tmpdir(), 'agentd-reload-'));
    const file = join(dir, 'agent.yaml');
    writeFileSync(join(dir, 'HOUSE.md'), 'Always answer in haiku.');
    const yaml = (extra: string) =>
      'a2a:\n  listen: http://127.0.0.1:0\n  principals:\n    - {id: alice, role: operator, match: {bearer: alice-token-abcdef}}\n' +
      `${extra}agent:\n  preflight: never\n`;
    writeFileSync(file, yaml(''));
    const sources = { files: [file], env: { AGENTD_STATE_DIR: dir }, flags: { intelligence: model.url }, cwd: dir };
    const events: Array<Record<string, unknown>> = [];
    const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
    const reloadConfig = () => compileConfig(sources);
    const runtime = await startRuntime(reloadConfig(), { log, warmWorkers: 0, reloadConfig });
    const url = String(events.find((e) => e.event === 'a2a.listen')?.bound);
    const asBob = () =>
      rawRequest(url, rpc('ListTasks', {}), { ...JSON_V1, Authorization: 'Bearer bob-token-abcdefgh' });
    const ask = async (text: string) => {
      const { record } = await runtime.supervisor.accept({ kind: 'timer', context_id: text, text, principal: null });
      return within(runtime.supervisor.outcomeOf(record.id), 20_000, text);
    };
    try {
      assert.equal((await asBob()).status, 401, 'premise: bob is nobody yet');
      assert.equal((await ask('before')).reply, 'ok');
      assert.doesNotMatch(JSON.stringify(model.requests.at(-1)?.body), /haiku/, 'premise: no instruction file');
      writeFileSync(
        file,
        yaml(
          '    - {id: bob, role: user, match: {bearer: bob-token-abcdefgh}}\n' +
            `mcp:\n  servers:\n    kit: {url: ${mcp.url}}\n`,
        ).replace('agent:\n', 'agent:\n  instruction_files: [HOUSE.md]\n'),
      );
      const applied = runtime.reload('api');
      assert.equal(applied.result, 'applied');
      assert.deepEqual(applied.result === 'applied' && applied.changed, [
        'a2a.principals',
        'agent.instruction_files',
        'mcp.servers.kit',
      ]);
      await waitUntil(() => runtime.tools.plan().mcp_servers.includes('kit'), 10_000, 'kit is listed');
      assert.equal((await asBob()).status, 200, 'bob authenticates on the next request');
      assert.equal((await ask('after')).reply, 'ok');
      assert.match(JSON.stringify(model.requests.at(-1)?.body), /Always answer in haiku/);
      writeFileSync(file, yaml(''));
      assert.equal(runtime.reload('api').result, 'applied');
      await waitUntil(() => events.some((e) => e.event === 'mcp.closed' && e.server === 'kit'), 10_000, 'closed');
      assert.equal(runtime.tools.plan().mcp_servers.includes('kit'), false);
      assert.equal((await asBob()).status, 401, 'bob is gone again');
      assert.equal(runtime.reload('api').result, 'unchanged');
      assert.match(await runtime.supervisor.metrics.render(), /^agentd_config_generation 3$/m);
      assert.match(await runtime.supervisor.metrics.render(), /^agentd_config_reloads_total\{result="applied"\} 2$/m);
    } finally {
      await runtime.stop();
      await Promise.all([model.close(), mcp.close()]);
    }
  });

  // A turn launched under a policy that judges `slow` on server kit; while its model answers, a reload removes kit
  // and denies `slow`. Before the turn kept its launch-time judging, the call was judged by the new policy (denied)
  // and kit's connection closed under it; now it runs on the connection the turn held, which closes at its end.
  it("a running turn's judged call keeps its launch policies and server across a reload", async () => {
    const mcp = await startMcpTestServer();
    const model = await startScriptedModel({
      turns: [{ content: 'ok' }],
      match: [
        {
          when_contains: 'judged job',
          times: 1,
          delay_ms: 2_000,
          tool_calls: [{ name: 'slow', arguments: { ms: 10 } }],
        },
      ],
    });
    const dir = mkdtempSync(join(tmpdir(), 'agentd-reload-'));
    const file = join(dir, 'agent.yaml');
    const base = 'agent:\n  preflight: never\nsecurity:\n  policies:\n';
    writeFileSync(
      file,
      `${base}    - {name: slow-ok, match: {tool: slow}, action: allow}\nmcp:\n  servers:\n    kit: {url: ${mcp.url}}\n`,
    );
    const sources = { files: [file], env: { AGENTD_STATE_DIR: dir }, flags: { intelligence: model.url }, cwd: dir };
    const events: Array<Record<string, unknown>> = [];
    const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
    const reloadConfig = () => compileConfig(sources);
    const runtime = await startRuntime(reloadConfig(), { log, warmWorkers: 0, reloadConfig, listen: null });
    try {
      const { record } = await runtime.supervisor.accept({
        kind: 'timer',
        context_id: 'j',
        text: 'judged job',
        principal: null,
      });
      await waitUntil(() => model.requests.length >= 1, 10_000, 'the turn asks the model');
      writeFileSync(file, `${base}    - {name: no-slow, match: {tool: slow}, action: deny}\n`);
      assert.equal(runtime.reload('api').result, 'applied');
      assert.equal(runtime.tools.plan().judged.includes('slow'), false, 'turns launched now have no slow');
      assert.equal(
        events.some((e) => e.event === 'mcp.closed'),
        false,
        'kit stays open for the running turn',
      );
      assert.equal((await within(runtime.supervisor.outcomeOf(record.id), 20_000, 'judged job')).reply, 'ok');
      const result = JSON.stringify(model.requests.at(-1)?.body);
      assert.match(result, /slept/, 'the call ran on kit');
      assert.doesNotMatch(result, /no-slow/);
      await waitUntil(() => events.some((e) => e.event === 'mcp.closed' && e.server === 'kit'), 10_000, 'kit closed');
    } finally {
      await runtime.stop();
      await Promise.all([model.close(), mcp.close()]);
    }
  });

  // The budget ledger kept the first settings a scope saw: after a reload lowered the instance budget, turns that no
  // longer fit were still admitted. The turn before the reload shows that the old budget admits it.
  it('a reload that lowers the instance budget refuses the next turn', async () => {
    const spend = { content: 'spent', usage: { prompt_tokens: 6000, completion_tokens: 500 } };
    const model = await startScriptedModel({ turns: [spend] });
    const dir = mkdtempSync(join(tmpdir(), 'agentd-reload-'));
    const file = join(dir, 'agent.yaml');
    const budget = (tokens: number) =>
      `agent:\n  preflight: never\nintelligence:\n  budget: {windows: [{per: week, tokens: ${tokens}}], on_exhausted: refuse}\n`;
    writeFileSync(file, budget(100_000));
    const sources = { files: [file], env: { AGENTD_STATE_DIR: dir }, flags: { intelligence: model.url }, cwd: dir };
    const log = createLogger({ level: 'error', write: () => {} });
    const reloadConfig = () => compileConfig(sources);
    const runtime = await startRuntime(reloadConfig(), { log, warmWorkers: 0, reloadConfig, listen: null });
    const ask = async (text: string) => {
      const { record } = await runtime.supervisor.accept({ kind: 'timer', context_id: text, text, principal: null });
      return within(runtime.supervisor.outcomeOf(record.id), 20_000, text);
    };
    try {
      assert.equal((await ask('first')).status, 'completed');
      assert.equal((await ask('second')).status, 'completed', 'premise: 13 000 of 100 000 admits a third turn');
      writeFileSync(file, budget(14_000));
      assert.equal(runtime.reload('api').result, 'applied');
      assert.equal((await ask('third')).status, 'refused');
      assert.equal(model.requests.length, 2);
    } finally {
      await runtime.stop();
      await model.close();
    }
  });
});
