// The `subscribe` start node over a real MCP server (producers reference §3.6): the daemon subscribes through the
// official MCP SDK, a burst of updates inside `debounce_ms` starts one run with the newest content, `filter` over
// `{content}` keeps out what it rejects, and an unknown server arms nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type McpTestServer, startMcpTestServer, WATCHED_URI } from '../../doubles/mcpTestServer.js';
import { waitUntil } from '../wait.js';
import { daemon, doneOf, runsOf } from './startRig.js';

const dir = mkdtempSync(join(tmpdir(), 'agentd-subscribe-'));
let mcp: McpTestServer;
before(async () => {
  mcp = await startMcpTestServer();
});
after(async () => {
  await mcp.close();
  rmSync(dir, { recursive: true, force: true });
});

const yaml = (url: string) => `mcp:
  servers:
    test: {url: "${url}"}
workflows:
  - name: watcher
    steps:
      s: {kind: subscribe, server: test, uri: "${WATCHED_URI}", debounce_ms: 400, filter: "CEL: content.version > 0"}
      f: {kind: finish, depends_on: [s], output: "{{steps.s.output.content.version}}"}
  - name: orphan
    steps:
      s: {kind: subscribe, server: nowhere, uri: "${WATCHED_URI}"}
      f: {kind: finish, depends_on: [s]}
`;

describe('subscribe start node', () => {
  it('an update burst inside the debounce window starts one run with the newest content', async () => {
    const { runtime, events } = await daemon(dir, yaml(mcp.url));
    try {
      await waitUntil(() => mcp.subscribers() === 1, 10_000, 'the daemon subscribed');
      await waitUntil(() => events.some((e) => e['event'] === 'start.subscribe.armed'), 10_000, 'armed');
      const armed = events.filter((e) => e['event'] === 'start.subscribe.armed');
      assert.deepEqual(
        armed.map((e) => e['workflow']),
        ['watcher'],
      );
      assert.equal(events.filter((e) => e['event'] === 'start.subscribe.no_server').length, 1, 'orphan not armed');

      for (const version of [1, 2, 3]) await mcp.updateResource(JSON.stringify({ version }));
      await waitUntil(() => doneOf(events, 'watcher').length >= 1, 10_000, 'the debounced run ended');
      await new Promise((r) => setTimeout(r, 600)); // past a second window: nothing more may start
      const runs = runsOf(events, 'watcher');
      assert.equal(runs.length, 1, 'three updates, one run (each would start one without the debounce)');
      const run = await runtime.store.workflows.getRun(String(runs[0]?.['run']));
      assert.equal(run?.output, 3, 'with the newest content');

      await mcp.updateResource(JSON.stringify({ version: 0 }));
      await new Promise((r) => setTimeout(r, 800));
      assert.equal(runsOf(events, 'watcher').length, 1, 'the filter keeps version 0 out');
      await mcp.updateResource(JSON.stringify({ version: 4 }));
      await waitUntil(() => runsOf(events, 'watcher').length === 2, 10_000, 'a later update starts another run');
    } finally {
      await runtime.stop();
    }
  });
});
