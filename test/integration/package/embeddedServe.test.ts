// An embedded agent's A2A side without and with serve(): the feed its backend writes at each fold is pruned from
// the start (not only once a listener opens), and serve() opens each listener once, never after close().
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAgent, runtimeOf } from '../../../src/agent.js';
import { DaemonError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/obs/log.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil, within } from '../wait.js';

const RETAIN = 2;

/** A port nothing listens on now: serve() at a fixed port makes a second listener fail loudly (EADDRINUSE). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address && typeof address === 'object');
  return address.port;
}

async function refused(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
    () => false,
    () => true,
  );
}

describe('embedded agent: feed retention and serve()', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'noted' }] });
  });
  after(async () => model.close());

  const agentAt = (store: string) =>
    createAgent({
      intelligence: model.url,
      store,
      config: { env: {}, values: { a2a: { feed: { retain_events: RETAIN } } } },
      log: silentLogger,
    });

  it('runs without serve() leave at most a2a.feed.retain_events feed rows once retention has run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-feedkeep-'));
    const first = await agentAt(dir);
    try {
      for (let i = 0; i < 5; i++) {
        const outcome = await within(first.send(`note ${i}`), 30_000, `run ${i}`);
        assert.equal(outcome.status, 'completed', outcome.error);
      }
      const rows = await runtimeOf(first).store.feed.after(0, 1_000);
      assert.ok(rows.length > RETAIN, `the premise: the backend writes feed rows without a listener (${rows.length})`);
    } finally {
      await first.close();
    }
    // Retention runs at start and every minute: before, only listen() started it, so an agent that never served
    // kept every row for good (this wait timed out).
    const second = await agentAt(dir);
    try {
      const feed = runtimeOf(second).store.feed;
      let left = Number.POSITIVE_INFINITY;
      const poll = setInterval(() => void feed.after(0, 1_000).then((r) => (left = r.length)), 50);
      await waitUntil(() => left <= RETAIN, 10_000, 'the feed pruned to retain_events').finally(() =>
        clearInterval(poll),
      );
    } finally {
      await second.close();
    }
  });

  it('concurrent serve() calls open one A2A and one metrics listener, closed by close()', async () => {
    const agent = await agentAt('memory');
    const [a2aPort, metricsPort] = [await freePort(), await freePort()];
    const opts = { listen: `http://127.0.0.1:${a2aPort}`, metrics: `127.0.0.1:${metricsPort}` };
    try {
      // Before, both calls passed the "not listening yet" check and the second failed with EADDRINUSE.
      const [one, two] = await within(Promise.all([agent.serve(opts), agent.serve(opts)]), 10_000, 'serve twice');
      assert.deepEqual(one, two);
      assert.equal(one.a2aUrl, `http://127.0.0.1:${a2aPort}`);
      assert.equal(one.metricsAddress, `127.0.0.1:${metricsPort}`);
      assert.equal(await refused(`http://${one.metricsAddress}/healthz`), false, 'metrics are served');
    } finally {
      await within(agent.close(), 30_000, 'close');
    }
    assert.ok(await refused(`http://127.0.0.1:${a2aPort}/`), 'the A2A listener is closed');
    assert.ok(await refused(`http://127.0.0.1:${metricsPort}/healthz`), 'the metrics listener is closed');
  });

  it('serve() after close() is refused with usage_invalid and opens nothing', async () => {
    const agent = await agentAt('memory');
    await within(agent.close(), 30_000, 'close');
    const port = await freePort();
    // Before, this opened a listener on the stopped runtime that nothing would ever close.
    await assert.rejects(
      agent.serve({ listen: `http://127.0.0.1:${port}` }),
      (err: unknown) => err instanceof DaemonError && err.code === 'usage_invalid',
    );
    assert.ok(await refused(`http://127.0.0.1:${port}/`));
  });
});
