// `subscribe` starts made durable and complete (issue 17): an open debounce window survives a restart and fires
// once, at its time, in the next life; `window` carries the newest samples; `coalesce` holds firings behind the
// node's live run and fires the newest once it ends; `deliver: signal` hands updates to the workflow's live run,
// and `on_no_listener` says what happens when there is none; a server that restarts is subscribed to again; a held
// firing is stored with its key and its row deleted only after it fired, so a crash replay finds the same run.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TimerRecord } from '../../../src/domain/timer.js';
import type { Runtime } from '../../../src/runtime/startRuntime.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { type McpTestServer, startMcpTestServer, WATCHED_URI } from '../../doubles/mcpTestServer.js';
import { waitUntil } from '../wait.js';
import { daemon, doneOf, type Logged, runsOf } from './startRig.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-subdurable-'));
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
/** A subscribe node debounced by `ms` whose run outputs the content's version. */
const debounced = (url: string, ms: number) =>
  config(
    url,
    `      s: {kind: subscribe, server: test, uri: "${WATCHED_URI}", debounce_ms: ${ms}}
      f: {kind: finish, depends_on: [s], output: "{{steps.s.output.content.version}}"}
`,
  );
/** An update to `server` starts one watcher run whose output is `version`. */
async function firesOn(server: McpTestServer, runtime: Runtime, events: Logged[], version: number): Promise<void> {
  await server.updateResource(JSON.stringify({ version }));
  await waitUntil(() => doneOf(events, 'watcher').length === 1, 10_000, 'an update fired');
  const run = await runtime.store.workflows.getRun(String(runsOf(events, 'watcher')[0]?.['run']));
  assert.equal(run?.output, version);
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('subscribe start, durable', () => {
  it('a debounce window open at a restart fires once in the next life, with its newest content', async () => {
    const dir = freshDir();
    const yaml = debounced(mcp.url, 1500);
    const first = await daemon(dir, yaml);
    let due = 0;
    try {
      await armed(first.events);
      await mcp.updateResource(JSON.stringify({ version: 1 }));
      await waitUntil(
        () => first.runtime.supervisor.timers.list().some((t) => t.kind === 'subscribe_window'),
        10_000,
        'open',
      );
      await mcp.updateResource(JSON.stringify({ version: 2 }));
      await waitUntil(
        () => {
          const row = first.runtime.supervisor.timers.list().find((t) => t.kind === 'subscribe_window');
          due = row?.due ?? 0;
          return (row?.payload as { payload?: { content?: { version?: number } } })?.payload?.content?.version === 2;
        },
        10_000,
        'the window is a stored row with the newest content',
      );
      assert.equal(runsOf(first.events, 'watcher').length, 0, 'the premise: nothing fired in the first life');
    } finally {
      await first.runtime.stop();
    }
    const second = await daemon(dir, yaml);
    try {
      await waitUntil(() => doneOf(second.events, 'watcher').length === 1, 10_000, 'the window fired in life 2');
      const [start] = runsOf(second.events, 'watcher');
      const run = await second.runtime.store.workflows.getRun(String(start?.['run']));
      assert.equal(run?.output, 2, 'with the newest content');
      assert.equal(run?.startKey, `subscribe/watcher.s/${due}`, 'keyed by its window: a replay finds this run');
      await pause(500);
      assert.equal(runsOf(second.events, 'watcher').length, 1, 'once');
      const rows = await second.runtime.store.timers.list();
      assert.equal(rows.filter((t) => t.kind === 'subscribe_window').length, 0, 'its row is gone');
    } finally {
      await second.runtime.stop();
    }
  });

  it('coalesce holds firings behind the live run and fires the newest once, with the window of samples', async () => {
    const { runtime, events, workflows } = await daemon(
      freshDir(),
      config(
        mcp.url,
        `      s: {kind: subscribe, server: test, uri: "${WATCHED_URI}", coalesce: true, window: {samples: 2}}
      go: {kind: wait, depends_on: [s], on: signal, signal: go, timeout: 60s}
      f: {kind: finish, depends_on: [go], output: "{{steps.s.output}}"}
`,
      ),
    );
    try {
      await armed(events);
      await mcp.updateResource(JSON.stringify({ version: 1 }));
      await waitUntil(() => runsOf(events, 'watcher').length === 1, 10_000, 'the first run');
      await mcp.updateResource(JSON.stringify({ version: 2 }));
      // Each update is read on its notification: the next waits until this one was read and held.
      await waitUntil(() => events.some((e) => e['event'] === 'start.subscribe.held'), 10_000, 'held');
      await mcp.updateResource(JSON.stringify({ version: 3 }));
      await waitUntil(
        () => events.filter((e) => e['event'] === 'start.subscribe.held').length === 2,
        10_000,
        'both held behind the live run',
      );
      assert.equal(runsOf(events, 'watcher').length, 1, 'no second run while the first is live');
      await workflows.desk?.signal('go', null, 'go-1');
      await waitUntil(() => runsOf(events, 'watcher').length === 2, 10_000, 'the held firing ran once the first ended');
      await workflows.desk?.signal('go', null, 'go-2');
      await waitUntil(() => doneOf(events, 'watcher').length === 2, 10_000, 'the second run ended');
      const second = await runtime.store.workflows.getRun(String(runsOf(events, 'watcher')[1]?.['run']));
      const output = second?.output as { content: { version: number }; window: Array<{ version: number }> };
      assert.equal(output.content.version, 3, 'the newest held firing');
      assert.deepEqual(
        output.window.map((c) => c.version),
        [2, 3],
        'the newest 2 samples',
      );
      await pause(300);
      assert.equal(runsOf(events, 'watcher').length, 2, 'two runs for three updates');
    } finally {
      await runtime.stop();
    }
  });

  it('deliver: signal hands updates to the live run; on_no_listener: drop drops them when none is live', async () => {
    const yaml = `${config(
      mcp.url,
      `      s: {kind: subscribe, server: test, uri: "${WATCHED_URI}", deliver: signal}
      w: {kind: wait, depends_on: [s], on: signal, signal: "${WATCHED_URI}", timeout: 60s}
      f: {kind: finish, depends_on: [w], output: "{{steps.w.output.payload.content.version}}"}
`,
    )}  - name: quiet
    steps:
      s: {kind: subscribe, server: test, uri: "${WATCHED_URI}", deliver: signal, on_no_listener: drop}
      f: {kind: finish, depends_on: [s]}
`;
    const { runtime, events } = await daemon(freshDir(), yaml);
    try {
      await waitUntil(
        () => events.filter((e) => e['event'] === 'start.subscribe.armed').length === 2,
        10_000,
        'both armed',
      );
      await mcp.updateResource(JSON.stringify({ version: 1 }));
      await waitUntil(() => runsOf(events, 'watcher').length === 1, 10_000, 'no listener: a run starts');
      await mcp.updateResource(JSON.stringify({ version: 2 }));
      await waitUntil(() => doneOf(events, 'watcher').length === 1, 10_000, 'the live run took the update');
      const run = await runtime.store.workflows.getRun(String(runsOf(events, 'watcher')[0]?.['run']));
      assert.equal(run?.output, 2);
      assert.equal(runsOf(events, 'watcher').length, 1, 'the second update started no run');
      assert.ok(events.some((e) => e['event'] === 'start.subscribe.delivered' && e['trigger'] === 'watcher.s'));
      assert.equal(runsOf(events, 'quiet').length, 0, 'on_no_listener: drop starts nothing');
      const dropped = events.filter((e) => e['event'] === 'start.subscribe.dropped' && e['trigger'] === 'quiet.s');
      assert.equal(dropped.length, 2);
    } finally {
      await runtime.stop();
    }
  });
});

describe('subscribe start, server restart', () => {
  it('subscribes again when the server comes back, and its updates fire again', async () => {
    const server = await startMcpTestServer();
    const port = Number(new URL(server.url).port);
    const { runtime, events } = await daemon(
      freshDir(),
      config(
        server.url,
        `      s: {kind: subscribe, server: test, uri: "${WATCHED_URI}"}
      f: {kind: finish, depends_on: [s], output: "{{steps.s.output.content.version}}"}
`,
      ),
    );
    let again: McpTestServer | null = null;
    try {
      await armed(events);
      await server.close();
      await waitUntil(() => events.some((e) => e['event'] === 'start.subscribe.lost'), 15_000, 'the loss is seen');
      again = await startMcpTestServer({ port });
      await waitUntil(() => again?.subscribers() === 1, 20_000, 'subscribed to the restarted server');
      const resubscribed = (e: Logged) => e['event'] === 'start.subscribe.armed' && e['resubscribed'] === true;
      await waitUntil(() => events.some(resubscribed), 10_000, 'start.subscribe.armed {resubscribed: true}');
      await firesOn(again, runtime, events, 7);
    } finally {
      await runtime.stop();
      await again?.close();
    }
  });
});

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

  it('two windows closed while the daemon was down both fire at start, each with its content', async () => {
    const dir = freshDir();
    const yaml = debounced(mcp.url, 1000);
    const first = await daemon(dir, yaml);
    try {
      await armed(first.events);
      const now = Date.now();
      for (const [due, version] of [
        [now - 2_000, 1],
        [now - 1_000, 2],
      ] as const) {
        const owner = 'subscribe:watcher.s';
        const payload = { trigger: 'watcher.s', payload: { server: 'test', uri: WATCHED_URI, content: { version } } };
        await first.runtime.store.timers.arm({
          id: `${owner}/subscribe_window/${due}`,
          owner,
          kind: 'subscribe_window',
          due,
          payload,
        });
      }
    } finally {
      await first.runtime.stop();
    }
    const second = await daemon(dir, yaml);
    try {
      await waitUntil(() => doneOf(second.events, 'watcher').length === 2, 10_000, 'both closed windows fired');
      const outputs = [];
      for (const start of runsOf(second.events, 'watcher'))
        outputs.push((await second.runtime.store.workflows.getRun(String(start['run'])))?.output);
      assert.deepEqual(outputs.sort(), [1, 2]);
      const rows = await second.runtime.store.timers.list();
      assert.equal(rows.filter((t) => t.kind === 'subscribe_window').length, 0, 'their rows are gone');
    } finally {
      await second.runtime.stop();
    }
  });
});

describe('subscribe start, server down when armed', () => {
  it('arms once the server is back, and its updates fire', async () => {
    const server = await startMcpTestServer();
    const port = Number(new URL(server.url).port);
    const { runtime, events, workflows } = await daemon(
      freshDir(),
      `mcp:\n  servers:\n    test: {url: "${server.url}"}\n`,
    );
    let again: McpTestServer | null = null;
    try {
      // No workflow yet: the engine loads when asked (workflows/lazyWorkflows.ts).
      const desk = await workflows.open();
      assert.ok(desk);
      await desk.opened;
      await server.close();
      const doc = {
        name: 'watcher',
        steps: {
          s: { kind: 'subscribe', server: 'test', uri: WATCHED_URI },
          f: { kind: 'finish', depends_on: ['s'], output: '{{steps.s.output.content.version}}' },
        },
      };
      const loaded = loadWorkflow(doc);
      assert.ok(loaded.ok);
      await desk.define('watcher', doc, loaded.def);
      const failed = (e: Logged) => e['event'] === 'start.subscribe.fail' || e['event'] === 'start.subscribe.no_server';
      await waitUntil(() => events.some(failed), 10_000, 'the server is down');
      again = await startMcpTestServer({ port });
      await waitUntil(() => again?.subscribers() === 1, 20_000, 'subscribed once the server is back');
      await armed(events);
      await firesOn(again, runtime, events, 9);
    } finally {
      await runtime.stop();
      await again?.close();
    }
  });
});
