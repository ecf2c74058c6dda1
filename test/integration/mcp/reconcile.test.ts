// Reconciling the tool surface with a reloaded config (interfaces §3.6) against a real MCP server over HTTP: the plan
// for new turns changes in the same step as the swap, and overlapping reconciles leave no removed server behind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../../src/obs/log.js';
import { liveConfig } from '../../../src/runtime/liveConfig.js';
import { ToolSurface } from '../../../src/tools/surface.js';
import { startMcpTestServer } from '../../doubles/mcpTestServer.js';
import { compileIn, tempDir, writeConfig } from '../../unit/config/configFiles.js';
import { within } from '../wait.js';

function config(yaml: string) {
  const dir = tempDir();
  return compileIn(dir, { files: [writeConfig(dir, 'a.yaml', `agent:\n  preflight: never\n${yaml}`)] });
}

describe('ToolSurface.reconcile', () => {
  // Before the plan was rebuilt ahead of the connect phase, a turn launched while connections opened got the new
  // policies with the old plan: `echo` stayed an unjudged route until every new server had connected.
  it('re-plans in the same step: a newly guarded tool is judged and a removed server is gone at once', async () => {
    const mcp = await startMcpTestServer();
    const server = `mcp:\n  servers:\n    kit: {url: ${mcp.url}}\n`;
    const live = liveConfig(config(server));
    const tools = await ToolSurface.start({ config: live.view, log: silentLogger, baseEnv: {} });
    try {
      assert.deepEqual(tools.plan().mcp_routes.echo, ['kit', 'echo'], 'premise: echo is routed to the worker');
      live.swap(config(`${server}security:\n  policies:\n    - {name: guard, match: {tool: echo}, action: allow}\n`));
      const guarding = tools.reconcile();
      assert.equal(tools.plan().judged.includes('echo'), true);
      await within(guarding, 10_000, 'the reconcile');
      live.swap(config(''));
      const removing = tools.reconcile();
      assert.equal(
        tools.plan().tools.some((t) => t.name === 'echo'),
        false,
      );
      assert.deepEqual(await within(removing, 10_000, 'the removal'), { opened: [], closed: ['kit'] });
    } finally {
      await tools.close();
      await mcp.close();
    }
  });

  // Before a connect checked that its server was still wanted, adding kit and removing it while it connected left
  // kit's connection open and its tools in the plan.
  it('add then remove while connecting: nothing of the server stays', async () => {
    const mcp = await startMcpTestServer();
    const live = liveConfig(config(''));
    const tools = await ToolSurface.start({ config: live.view, log: silentLogger, baseEnv: {} });
    try {
      live.swap(config(`mcp:\n  servers:\n    kit: {url: ${mcp.url}}\n`));
      const adding = tools.reconcile();
      // kit's connect is under way (its HTTP round trips take more than one turn of the event loop).
      await new Promise((resolve) => setImmediate(resolve));
      live.swap(config(''));
      const removing = tools.reconcile();
      await within(Promise.all([adding, removing]), 10_000, 'both reconciles');
      assert.deepEqual(tools.describe().mcp, {});
      assert.equal(
        tools.plan().tools.some((t) => t.name === 'echo'),
        false,
      );
      // The premise: the same add on its own does connect and list kit.
      live.swap(config(`mcp:\n  servers:\n    kit: {url: ${mcp.url}}\n`));
      await within(tools.reconcile(), 10_000, 'the add');
      assert.equal(
        tools.plan().tools.some((t) => t.name === 'echo'),
        true,
      );
    } finally {
      await tools.close();
      await mcp.close();
    }
  });
});
