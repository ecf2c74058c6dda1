// What an idle daemon loads (issue 14: idle memory): a daemon with an A2A listener, SQLite and its spare worker has
// not loaded pg, @bufbuild/cel, ajv, prom-client's index (its cluster aggregator, push gateway and default metrics
// with @opentelemetry/api), the A2A SDK's server and client or jose; its workers, spare or after a turn over http,
// have not loaded TLS or node:crypto; without workflows configured or stored, it has not loaded the workflow engine.
// A config that uses CEL loads @bufbuild/cel at start, and the first card request loads the SDK and jose, which
// shows the listing sees them.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { childrenOf, waitUntil, within } from '../integration/wait.js';
import { type Daemon, send, startDaemon } from './daemon.js';
import { tempStateDir } from './harness.js';

const preload = fileURLToPath(new URL('../doubles/moduleList.js', import.meta.url));
const LAZY = [/node_modules\/pg\//, /node_modules\/@bufbuild\/cel\//, /node_modules\/ajv\//, /prom-client\/index\.js/];
/** The A2A SDK's server and client entries (each imports jose) and jose itself; its small errors entry may load. */
const A2A_SDK = [/@a2a-js\/sdk\/dist\/(index|server\/index|client\/index)\.js/, /node_modules\/jose\//];
/** node's own modules a worker goes without until it needs them: TLS (an https model call) and crypto (the MCP journal). */
const SPARE_LAZY = ['https', 'tls', 'crypto'];
/** A worker's turn half (worker/turnWorker.ts and what only it imports), which a spare loads at its first turn. */
const TURN_HALF = [
  /\/dist\/src\/worker\/turnWorker\.js$/,
  /\/dist\/src\/worker\/roundLoop\.js$/,
  /\/dist\/src\/intel\/modelClient\.js$/,
];

/** The workflow engine: its desk, node kinds, document parser and tool bodies (workflows/lazyWorkflows.ts). */
const ENGINE = [
  /\/dist\/src\/workflows\/workflowDesk\.js$/,
  /\/dist\/src\/workflows\/nodeKinds\.js$/,
  /\/dist\/src\/workflows\/definitions\.js$/,
  /\/dist\/src\/workflows\/workflowTools\.js$/,
];
const engine = (modules: string[]): string[] => modules.filter((m) => ENGINE.some((re) => re.test(m)));

const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** Every module `pid` (the daemon or a worker) loaded by now: ES and CommonJS, and node's own apart. */
async function loadedBy(pid: number, dir: string): Promise<{ modules: string[]; builtins: string[] }> {
  // The list exists once the preload has set its SIGUSR2 handler (before it, the signal would end the process).
  await waitUntil(() => readdirSync(dir).includes(`esm-${pid}.txt`), 10_000, 'the process lists its modules');
  process.kill(pid, 'SIGUSR2');
  await waitUntil(() => readdirSync(dir).includes(`cjs-${pid}.txt`), 10_000, 'the module list');
  const cjs = lines(join(dir, `cjs-${pid}.txt`));
  return { modules: [...lines(join(dir, `esm-${pid}.txt`)), ...cjs], builtins: lines(join(dir, `builtin-${pid}.txt`)) };
}

async function withDaemon<T>(
  extra: string,
  use: (daemon: Daemon, dir: string) => Promise<T>,
  model = 'http://127.0.0.1:9/v1',
  state = tempStateDir(),
): Promise<T> {
  const list = mkdtempSync(join(tmpdir(), 'agentd-modules-'));
  const yaml = `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model}\n${extra}`;
  const env = { NODE_OPTIONS: `--import ${preload}`, AGENTD_TEST_MODULES: list };
  const daemon = await startDaemon(state, yaml, env);
  try {
    return await use(daemon, list);
  } finally {
    await daemon.stop();
  }
}

describe('an idle daemon', { timeout: 60_000 }, () => {
  it('has not loaded pg, @bufbuild/cel, ajv, the whole of prom-client, the A2A SDK or jose', async () => {
    const { modules } = await withDaemon('', (d, dir) => loadedBy(d.child.pid as number, dir));
    assert.ok(
      modules.some((m) => m.includes('better-sqlite3')),
      'premise: the listing holds CommonJS modules',
    );
    assert.ok(
      modules.some((m) => m.includes('/dist/src/a2a/')),
      'premise: the listing holds ES modules',
    );
    assert.deepEqual(
      modules.filter((m) => [...LAZY, ...A2A_SDK].some((re) => re.test(m))),
      [],
    );
    assert.deepEqual(engine(modules), [], 'the workflow engine');
  });

  it('loads the workflow engine at the first workflow.* call, which works, and at start once the store holds one', async () => {
    const definition = { name: 'w', steps: { s: { kind: 'manual' }, f: { kind: 'finish', depends_on: ['s'] } } };
    const calls = [
      { name: 'workflow.create', arguments: { definition } },
      { name: 'workflow.list', arguments: {} },
    ];
    const model = await startScriptedModel({ turns: [{ tool_calls: calls }, { content: 'created' }] });
    const state = tempStateDir();
    try {
      const { before, after } = await withDaemon(
        '',
        async (d, dir) => {
          const pid = d.child.pid as number;
          const idle = await loadedBy(pid, dir);
          rmSync(join(dir, `cjs-${pid}.txt`));
          const client = await clientFor(d.url);
          await within(client.sendMessage(send('make w')), 30_000, 'one turn');
          return { before: idle.modules, after: (await loadedBy(pid, dir)).modules };
        },
        model.url,
        state,
      );
      assert.deepEqual(engine(before), [], 'premise: not loaded before the call');
      // The parser and tool bodies are required/imported by the call; the desk is imported with the producer.
      assert.ok(
        after.some((m) => ENGINE[0]?.test(m)),
        'the desk loaded',
      );
      // The tool results the model got back: workflow.list lists the workflow the same turn created.
      const sent = (model.requests[1]?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)
        ?.messages;
      const results = (sent ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
      assert.equal(results.length, 2, 'premise: both calls answered');
      assert.match(results[1] ?? '', /"workflows":\[\{"name":"w"/);
      // Stored now: the next life opens the desk at start (its runs and starts restored), with no call.
      const restarted = await withDaemon('', (d, dir) => loadedBy(d.child.pid as number, dir), model.url, state);
      assert.ok(
        restarted.modules.some((m) => ENGINE[0]?.test(m)),
        'the desk loaded at start',
      );
    } finally {
      await model.close();
    }
  });

  it('loads the A2A SDK and jose at the first card request', async () => {
    const { modules } = await withDaemon('', async (d, dir) => {
      const card = await fetch(`${d.url}/.well-known/agent-card.json`);
      assert.equal(card.status, 200);
      assert.equal(((await card.json()) as { name?: unknown }).name !== undefined, true);
      return loadedBy(d.child.pid as number, dir);
    });
    for (const re of A2A_SDK)
      assert.ok(
        modules.some((m) => re.test(m)),
        `${re} loaded`,
      );
  });

  it('has workers that wait for a turn, and serve one over http, without TLS or node:crypto', async () => {
    const model = await startScriptedModel({ turns: [{ content: 'ok' }] });
    const workers = await withDaemon(
      '',
      async (d, dir) => {
        const pid = d.child.pid as number;
        const client = await clientFor(d.url);
        await within(client.sendMessage(send('hello')), 30_000, 'one turn');
        const all = childrenOf(pid, 'worker/main');
        return Promise.all(all.map((w) => loadedBy(w, dir)));
      },
      model.url,
    ).finally(() => model.close());
    assert.ok(workers.length > 0, 'premise: the daemon keeps a worker');
    assert.ok(
      workers.some((w) => w.builtins.includes('http')),
      'premise: the listing holds node:http, which a worker loads',
    );
    for (const w of workers)
      assert.deepEqual(
        w.builtins.filter((m) => SPARE_LAZY.includes(m)),
        [],
      );
  });

  it('has a spare that holds only its frame pipe until its first turn, which loads the turn half', async () => {
    const model = await startScriptedModel({ turns: [{ content: 'ok' }] });
    const { spare, served } = await withDaemon(
      '',
      async (d, dir) => {
        const pid = d.child.pid as number;
        await waitUntil(() => childrenOf(pid, 'worker/main').length > 0, 20_000, 'the spare starts');
        const first = childrenOf(pid, 'worker/main')[0] as number;
        const waiting = await loadedBy(first, dir);
        rmSync(join(dir, `cjs-${first}.txt`));
        const client = await clientFor(d.url);
        await within(client.sendMessage(send('hello')), 30_000, 'one turn');
        return { spare: waiting, served: await loadedBy(first, dir) };
      },
      model.url,
    ).finally(() => model.close());
    const turnHalf = (m: string): boolean => TURN_HALF.some((re) => re.test(m));
    assert.deepEqual(spare.modules.filter(turnHalf), []);
    assert.deepEqual(
      spare.builtins.filter((m) => m === 'http'),
      [],
    );
    assert.equal(served.modules.filter(turnHalf).length, TURN_HALF.length, 'the worker that served the turn');
  });

  it('has a spare that loads the turn half while it waits when every turn gets a fresh worker', async () => {
    const { modules } = await withDaemon('agent:\n  worker_max_turns: 1\n', async (d, dir) => {
      const pid = d.child.pid as number;
      await waitUntil(() => childrenOf(pid, 'worker/main').length > 0, 20_000, 'the spare starts');
      const spare = childrenOf(pid, 'worker/main')[0] as number;
      // The spare imports the turn half after its own start (a module is listed as it loads, before its imports):
      // list its modules again until all of it shows (or time out).
      const until = Date.now() + 20_000;
      for (;;) {
        const loaded = await loadedBy(spare, dir);
        const all = TURN_HALF.every((re) => loaded.modules.some((m) => re.test(m)));
        if (all || Date.now() > until) return loaded;
        rmSync(join(dir, `cjs-${spare}.txt`));
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    assert.equal(modules.filter((m) => TURN_HALF.some((re) => re.test(m))).length, TURN_HALF.length);
  });

  it('has a spare that loads TLS while it waits when a model endpoint is https', async () => {
    const builtins = await withDaemon(
      '',
      async (d, dir) => {
        const pid = d.child.pid as number;
        await waitUntil(() => childrenOf(pid, 'worker/main').length > 0, 20_000, 'the spare starts');
        const spare = childrenOf(pid, 'worker/main')[0] as number;
        // The spare imports TLS after its own start: list its modules again until it shows (or time out).
        const until = Date.now() + 20_000;
        for (;;) {
          const loaded = (await loadedBy(spare, dir)).builtins;
          if (loaded.includes('tls') || Date.now() > until) return loaded;
          rmSync(join(dir, `cjs-${spare}.txt`));
          await new Promise((r) => setTimeout(r, 100));
        }
      },
      'https://127.0.0.1:9/v1',
    );
    assert.ok(builtins.includes('tls'), 'the spare loaded TLS within 20 s');
  });

  it('loads @bufbuild/cel once its config compiles an expression', async () => {
    const workflow =
      'workflows:\n  - name: w\n    steps:\n      s: {kind: manual}\n' +
      '      a: {kind: assert, depends_on: [s], condition: "1 == 1"}\n      f: {kind: finish, depends_on: [a]}\n';
    const { modules } = await withDaemon(workflow, (d, dir) => loadedBy(d.child.pid as number, dir));
    assert.ok(modules.some((m) => /node_modules\/@bufbuild\/cel\//.test(m)));
  });
});
