// `subscribe` starts, review fixes (issue 17): a firing `coalesce` held is stored with its key and fires with it,
// its row deleted only after, so a crash between the two fires it again into the same run, not a second one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TimerRecord } from '../../../src/domain/timer.js';
import { type McpTestServer, startMcpTestServer, WATCHED_URI } from '../../doubles/mcpTestServer.js';
import { waitUntil } from '../wait.js';
import { daemon, doneOf, type Logged, runsOf } from './startRig.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-subreview-'));
  dirs.push(dir);
  return dir;
};
let mcp: McpTestServer;
before(async () => {
  mcp = await startMcpTestServer();
});
after(async () => {
  await mcp.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const config = (url: string, steps: string) => `mcp:
  servers:
    test: {url: "${url}"}
workflows:
  - name: watcher
    steps:
${steps}`;
const armed = (events: Logged[]) =>
  waitUntil(() => events.some((e) => e['event'] === 'start.subscribe.armed'), 10_000, 'armed');
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('subscribe start, held firing', () => {
  it('fires with the key it was held with; its row replayed after a crash finds that run', async () => {
    const dir = freshDir();
    const yaml = config(
      mcp.url,
      `      s: {kind: subscribe, server: test, uri: "${WATCHED_URI}", coalesce: true}
      go: {kind: wait, depends_on: [s], on: signal, signal: go, timeout: 60s}
      f: {kind: finish, depends_on: [go], output: "{{steps.s.output.content.version}}"}
`,
    );
    const life = await daemon(dir, yaml);
    let row: TimerRecord | undefined;
    try {
      await armed(life.events);
      await mcp.updateResource(JSON.stringify({ version: 1 }));
      await waitUntil(() => runsOf(life.events, 'watcher').length === 1, 10_000, 'the first run');
      await mcp.updateResource(JSON.stringify({ version: 2 }));
      await waitUntil(() => life.events.some((e) => e['event'] === 'start.subscribe.held'), 10_000, 'held');
      row = life.runtime.supervisor.timers.list().find((t) => t.kind === 'subscribe_held');
      const key = (row?.payload as { key?: unknown } | undefined)?.key;
      assert.equal(typeof key, 'string', 'the held row keeps the key it fires with');
      await life.workflows.desk?.signal('go', null, 'go-1');
      await waitUntil(() => runsOf(life.events, 'watcher').length === 2, 10_000, 'the held firing ran');
      const run = await life.runtime.store.workflows.getRun(String(runsOf(life.events, 'watcher')[1]?.['run']));
      assert.equal(run?.startKey, `subscribe/watcher.s/${String(key)}`, 'keyed by its held key');
      await life.workflows.desk?.signal('go', null, 'go-2');
      await waitUntil(() => doneOf(life.events, 'watcher').length === 2, 10_000, 'the second run ended');
      await waitUntil(
        () => !life.runtime.supervisor.timers.list().some((t) => t.kind === 'subscribe_held'),
        10_000,
        'its row is deleted after the firing',
      );
      // A crash after the firing, before the delete: the row is still stored in the next life.
      if (row) await life.runtime.store.timers.arm(row);
    } finally {
      await life.runtime.stop();
    }
    const next = await daemon(dir, yaml);
    try {
      await armed(next.events);
      await waitUntil(
        () => !next.runtime.supervisor.timers.list().some((t) => t.kind === 'subscribe_held'),
        10_000,
        'the replayed row is settled',
      );
      await pause(300);
      assert.equal(runsOf(next.events, 'watcher').length, 0, 'the replay found the run it started: no second run');
    } finally {
      await next.runtime.stop();
    }
  });
});
