// search.query in a real runtime (compiled config, SQLite store, the workflow producer): a real local HTTP server
// speaking SearXNG's JSON API stands in for the external search service (no network here, as the scripted model
// stands in for the model). The step asks it with the query, categories, time range and the bearer key from
// `{{secret:…}}`; the key stays out of events and the run. Without `search.provider.url` a configured workflow
// with a search.query step is refused at load, naming the workflow, the step and the key.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { answer, startRig } from '../harness.js';
import { toolResults } from '../subagents/subagentParts.js';
import { daemon, doneOf } from '../triggers/startRig.js';
import { waitUntil } from '../wait.js';

const KEY = 'searx-token-8d2e61';
const dir = mkdtempSync(join(tmpdir(), 'agentd-search-'));
const asked: { query: Record<string, string>; auth: string | undefined }[] = [];
let server: Server;
let base = '';

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    asked.push({ query: Object.fromEntries(url.searchParams), auth: req.headers.authorization });
    if (url.pathname !== '/search' || req.headers.authorization !== `Bearer ${KEY}`) {
      res.writeHead(403).end('forbidden');
      return;
    }
    const q = url.searchParams.get('q');
    const results = [1, 2, 3].map((i) => ({
      url: `https://docs.example/${i}`,
      title: `${q} ${i}`,
      content: `about ${q} (${i})`,
      engine: 'duckduckgo',
      ...(i === 1 ? { publishedDate: '2026-11-30T00:00:00' } : {}),
    }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ query: q, number_of_results: 3, results, answers: [], suggestions: [] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const WORKFLOW = `workflows:
  - name: finder
    steps:
      s: {kind: once}
      q: {kind: search.query, depends_on: [s], query: "durable workflows"}
      f: {kind: finish, depends_on: [q], output: "CEL: steps.q.output"}
`;

/** A fresh directory under the test's own. */
function sub(name: string): string {
  const d = join(dir, name);
  mkdirSync(d);
  return d;
}

describe('search.query', () => {
  it('asks the configured SearXNG-compatible provider and keeps the first `limit` results', async () => {
    const yaml = `search:\n  provider:\n    url: ${base}/search\n    key: "{{secret:SEARX_KEY}}"\n${WORKFLOW.replace(
      'query: "durable workflows"',
      'query: "durable workflows", search_kind: code, limit: 2, freshness: month',
    )}`;
    const { runtime, events } = await daemon(sub('ok'), yaml, { SEARX_KEY: KEY });
    try {
      await waitUntil(() => doneOf(events, 'finder').length === 1, 10_000, 'the run ended');
      const [runId] = doneOf(events, 'finder').map((e) => String(e['run']));
      const run = await runtime.store.workflows.getRun(String(runId));
      assert.equal(run?.status, 'completed', String(run?.error));
      assert.deepEqual(run?.output, {
        query: 'durable workflows',
        results: [1, 2].map((i) => ({
          title: `durable workflows ${i}`,
          url: `https://docs.example/${i}`,
          snippet: `about durable workflows (${i})`,
          engine: 'duckduckgo',
          published: i === 1 ? '2026-11-30T00:00:00' : null,
        })),
      });
      assert.deepEqual(asked.at(-1)?.query, {
        q: 'durable workflows',
        format: 'json',
        categories: 'repos',
        time_range: 'month',
      });
      assert.ok(!JSON.stringify(events).includes(KEY), 'the key is in an event');
      assert.ok(!JSON.stringify(run).includes(KEY), 'the key is in the run');
    } finally {
      await runtime.stop();
    }
  });

  it('fails the step on a provider refusal, naming its status', async () => {
    const yaml = `search:\n  provider:\n    url: ${base}/search\n    key: wrong\n${WORKFLOW}`;
    const { runtime, events } = await daemon(sub('refused'), yaml);
    try {
      await waitUntil(() => doneOf(events, 'finder').length === 1, 10_000, 'the run ended');
      const run = await runtime.store.workflows.getRun(String(doneOf(events, 'finder')[0]?.['run']));
      assert.equal(run?.error, 'step "q" failed: search.query: provider http status 403');
    } finally {
      await runtime.stop();
    }
  });

  it('is refused at load without a provider, and bad fields are named', () => {
    const none = sub('none');
    writeFileSync(join(none, 'agentd.yaml'), WORKFLOW);
    const flags = { intelligence: 'http://127.0.0.1:9', model: 'm' };
    assert.throws(
      () => compileConfig({ files: [join(none, 'agentd.yaml')], env: {}, flags, cwd: none, workflows: loadWorkflow }),
      (err: Error) =>
        err.message.includes(
          'workflow "finder" step "q": search.query needs a search provider (search.provider.url is not set)',
        ),
    );
    const bad = loadWorkflow({
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        q: { kind: 'search.query', depends_on: 's', query: 'x', search_kind: 'news', limit: 0, freshness: 'hour' },
      },
    });
    assert.deepEqual(bad.ok ? [] : bad.errors, [
      'workflow "w" step "q": search.query.search_kind must be web, docs or code (got "news")',
      'workflow "w" step "q": search.query.limit must be an integer in 1..50 (got 0)',
      'workflow "w" step "q": search.query.freshness must be one of day, week, month, year (got "hour")',
    ]);
  });

  it('workflow.create of a search.query workflow without a provider is refused, naming the step and the key', async () => {
    const definition = {
      name: 'finder',
      steps: {
        s: { kind: 'manual' },
        q: { kind: 'search.query', depends_on: 's', query: 'x' },
        f: { kind: 'finish', depends_on: 'q' },
      },
    };
    const rig = await startRig(
      { turns: [{ tool_calls: [{ name: 'workflow.create', arguments: { definition } }] }, { content: 'ok' }] },
      {},
      { yaml: '' },
    );
    try {
      assert.equal((await answer(rig, 'boss', 'make it')).status, 'completed');
      const [created] = toolResults(rig, 'boss');
      assert.equal(created?.is_error, true);
      assert.equal(
        created?.content,
        'workflow.create: workflow "finder" step "q": search.query needs a search provider (search.provider.url is not set)',
      );
      assert.deepEqual(await rig.store.workflows.listDefinitions(), []);
    } finally {
      await rig.close();
    }
  });
});
