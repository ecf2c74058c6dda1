// Webhook idempotency keys are pruned by age (issue 17 item 6): over real HTTP and a real SQLite file, a redelivery
// within IDEMPOTENCY_KEEP_MS is a duplicate; one after it starts again, and keys of other kinds are never pruned.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import type { PressureNow } from '../../../src/triggers/shedPolicy.js';
import { IDEMPOTENCY_KEEP_MS, WebhookRoutes } from '../../../src/triggers/webhooks.js';

const T0 = Date.parse('2026-06-01T00:00:00Z');
const DAY = 24 * 3_600_000;

/** A real HTTP server handing every request to `routes`; `url` is the `/hook` path on it. */
async function serve(routes: WebhookRoutes) {
  const server = createServer((req, res) => {
    if (!routes.serve(req, res, new URL(req.url ?? '/', 'http://x').pathname)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

describe('webhook shedding', () => {
  it('under pressure a delivery is 429 shedding with Retry-After 30 and starts nothing; a low priority one sheds on warn', async () => {
    const store = new MemoryStore();
    let pressure: PressureNow = { level: 'shed', cause: 'disk' };
    const routes = new WebhookRoutes({
      keys: store.timers,
      log: createLogger({ level: 'error', write: () => {} }),
      now: Date.now,
      limits: () => ({ maxBodyBytes: 65_536, bodyTimeoutMs: 5_000 }),
      pressure: () => pressure,
    });
    const started: string[] = [];
    const target = { fire: async (_t: string, _at: number, key: string) => void started.push(key) };
    routes.register({ id: 'w.hook', path: '/hook', auth: { none: true }, idempotency: false }, target);
    routes.register(
      { id: 'low.hook', path: '/low', auth: { none: true }, idempotency: false, priority: 'low' },
      target,
    );
    const { server, url } = await serve(routes);
    try {
      const shed = await fetch(url, { method: 'POST', body: '{}' });
      assert.equal(shed.status, 429);
      assert.equal(shed.headers.get('retry-after'), '30');
      assert.deepEqual(await shed.json(), { error: 'shedding: disk' });
      pressure = { level: 'warn', cause: 'memory' };
      assert.equal((await fetch(url, { method: 'POST', body: '{}' })).status, 202, 'premise: normal fires on warn');
      assert.equal((await fetch(url.replace('/hook', '/low'), { method: 'POST', body: '{}' })).status, 429);
      assert.equal(started.length, 1, 'only the delivery let through started');
    } finally {
      server.close();
    }
  });
});

describe('webhook idempotency keys', () => {
  it('are forgotten after IDEMPOTENCY_KEEP_MS, pruned on a later delivery; other keys stay', async () => {
    const store = new SqliteStore(mkdtempSync(join(tmpdir(), 'agentd-keys-')));
    let now = T0;
    const events: string[] = [];
    const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line).event) });
    const routes = new WebhookRoutes({
      keys: store.timers,
      log,
      now: () => now,
      limits: () => ({ maxBodyBytes: 65_536, bodyTimeoutMs: 5_000 }),
    });
    const started: string[] = [];
    routes.register(
      { id: 'w.hook', path: '/hook', auth: { none: true } },
      {
        fire: async (_t, _at, key) => void started.push(key),
      },
    );
    const { server, url } = await serve(routes);
    const deliver = async () =>
      (await fetch(url, { method: 'POST', body: '{}', headers: { 'Idempotency-Key': 'k1' } })).status;
    try {
      await store.timers.remember('schedule-done/w.at/x', T0 - 30 * DAY);
      assert.equal(await deliver(), 202);
      now = T0 + DAY;
      assert.equal(await deliver(), 200, 'premise: a redelivery within the window is a duplicate');
      now = T0 + IDEMPOTENCY_KEEP_MS + DAY;
      assert.equal(await deliver(), 202, 'forgotten past the window: it starts again');
      assert.equal(started.length, 2);
      assert.ok(events.includes('webhook.keys_pruned'));
      assert.equal(await store.timers.seen('schedule-done/w.at/x'), true, 'a consumed schedule stays consumed');
    } finally {
      server.close();
      await store.close();
    }
  });

  it('the memory store forgets by prefix and age too', async () => {
    const { timers } = new MemoryStore();
    await timers.remember('webhook/a/1', 10);
    await timers.remember('webhook/a/2', 30);
    await timers.remember('other/1', 10);
    assert.equal(await timers.forget('webhook/', 20), 1);
    assert.deepEqual(await Promise.all(['webhook/a/1', 'webhook/a/2', 'other/1'].map((k) => timers.seen(k))), [
      false,
      true,
      true,
    ]);
  });
});
