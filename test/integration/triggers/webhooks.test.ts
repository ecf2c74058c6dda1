// Webhook routes on the real A2A listener over real HTTP and a real SQLite file (producers reference §3.7, case
// P-25): idempotency across a restart, HMAC and bearer auth, the rate limit, parallelism, body-field keys, sync.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { A2aProducer } from '../../../src/a2a/a2aProducer.js';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { type Runtime, startRuntime } from '../../../src/runtime/startRuntime.js';
import type { FireTarget } from '../../../src/triggers/fireTarget.js';
import type { WebhookRoute } from '../../../src/triggers/webhookPolicy.js';

async function daemon(dir: string) {
  const events: Array<Record<string, unknown>> = [];
  const flags = { intelligence: 'http://127.0.0.1:9', model: 'm' };
  const config = compileConfig({ files: [], env: { AGENTD_STATE_DIR: dir }, flags, cwd: dir });
  const write = (line: string) => events.push(JSON.parse(line));
  const runtime: Runtime = await startRuntime(config, {
    log: createLogger({ level: 'debug', write }),
    listen: 'http://127.0.0.1:0',
    warmWorkers: 0,
  });
  const a2a = runtime.producers.find((p) => p.name === 'a2a') as A2aProducer;
  return { runtime, url: a2a.url ?? '', events };
}

/** A target that dedupes by key (as the inbox does) and records what it started. */
function recorder(hold?: Promise<void>) {
  const started: Array<{ key: string; payload: unknown }> = [];
  const keys = new Set<string>();
  const target: FireTarget = {
    async fire(_id, _at, key, payload) {
      if (!keys.has(key)) started.push({ key, payload });
      keys.add(key);
      await hold;
    },
  };
  return { target, started };
}

/** A recorder whose firings hold until `release` is called. */
function heldRecorder() {
  let release: () => void = () => {};
  const hold = new Promise<void>((r) => {
    release = r;
  });
  return { ...recorder(hold), release: () => release() };
}

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });

const route = (over: Partial<WebhookRoute>): WebhookRoute => ({
  id: 'w.hook',
  workflow: 'w',
  path: '/hooks/ci',
  auth: { none: true },
  ...over,
});

describe('webhooks on the A2A listener', () => {
  it('P-25: a redelivered Idempotency-Key is a duplicate, also after a restart, and starts one run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-hook-'));
    const { target, started } = recorder();
    const first = await daemon(dir);
    try {
      first.runtime.triggers.webhooks.register(route({}), target);
      const a = await post(`${first.url}/hooks/ci`, '{"ref":"main"}', { 'Idempotency-Key': 'k1' });
      assert.equal(a.status, 202);
      assert.deepEqual(await a.json(), { status: 'accepted', workflow: 'w' });
      const b = await post(`${first.url}/hooks/ci`, '{"ref":"main"}', { 'Idempotency-Key': 'k1' });
      assert.equal(b.status, 200);
      assert.deepEqual(await b.json(), { status: 'duplicate', idempotency_key: 'k1' });
      const racing = await Promise.all(
        [1, 2].map(() => post(`${first.url}/hooks/ci`, '{}', { 'Idempotency-Key': 'k3' })),
      );
      assert.deepEqual(racing.map((r) => r.status).sort(), [200, 202], 'two deliveries at once: one starts');
      assert.equal(started.length, 2);
      assert.deepEqual((started[0]?.payload as { body: unknown } | undefined)?.body, { ref: 'main' });
      assert.equal((await fetch(`${first.url}/hooks/ci`)).status, 405, 'GET is not among the methods');
      assert.equal((await post(`${first.url}/hooks/none`, '{}')).status, 404);
    } finally {
      await first.runtime.stop();
    }
    const second = await daemon(dir);
    try {
      second.runtime.triggers.webhooks.register(route({}), target);
      const c = await post(`${second.url}/hooks/ci`, '{"ref":"main"}', { 'Idempotency-Key': 'k1' });
      assert.deepEqual(await c.json(), { status: 'duplicate', idempotency_key: 'k1' });
      const d = await post(`${second.url}/hooks/ci`, '{}', { 'Idempotency-Key': 'k2' });
      assert.equal(d.status, 202, 'premise: a new key still starts a run after the restart');
      assert.equal(started.length, 3);
    } finally {
      await second.runtime.stop();
    }
  });

  it('an HMAC route refuses an unsigned or badly signed POST with 401 and starts nothing; a signed one starts', async () => {
    const { runtime, url, events } = await daemon(mkdtempSync(join(tmpdir(), 'agentd-hook-')));
    const { target, started } = recorder();
    try {
      runtime.triggers.webhooks.register(route({ auth: { hmac: { secret: 's3cret-s3cret' } } }), target);
      const body = '{"action":"push"}';
      const unsigned = await post(`${url}/hooks/ci`, body);
      assert.equal(unsigned.status, 401);
      assert.deepEqual(await unsigned.json(), { error: 'authentication failed' });
      const wrong = createHmac('sha256', 'not-the-secret').update(body).digest('hex');
      assert.equal((await post(`${url}/hooks/ci`, body, { 'X-Signature': `sha256=${wrong}` })).status, 401);
      assert.equal(started.length, 0);
      assert.equal(events.filter((e) => e.event === 'webhook.denied').length, 2);
      const good = createHmac('sha256', 's3cret-s3cret').update(body).digest('hex');
      assert.equal((await post(`${url}/hooks/ci`, body, { 'X-Signature': `sha256=${good}` })).status, 202);
      assert.equal(started.length, 1);
      assert.ok(!JSON.stringify(events).includes('s3cret-s3cret'), 'the secret is in no event');
    } finally {
      await runtime.stop();
    }
  });

  it('a bearer route; a burst over the rate limit is answered 429 and every accepted delivery started', async () => {
    const { runtime, url } = await daemon(mkdtempSync(join(tmpdir(), 'agentd-hook-')));
    const { target, started } = recorder();
    try {
      const auth = { bearer: 'hook-token-0123456789' };
      runtime.triggers.webhooks.register(route({ auth, rate: { burst: 3, per_ms: 60_000 } }), target);
      const bearer = { Authorization: 'Bearer hook-token-0123456789' };
      assert.equal((await post(`${url}/hooks/ci`, '{}', { Authorization: 'Bearer nope' })).status, 401);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => post(`${url}/hooks/ci`, '{}', { ...bearer, 'Idempotency-Key': `b${i}` })),
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [202, 202, 202, 429, 429, 429]);
      const limited = answers.find((a) => a.status === 429);
      assert.equal(limited?.headers.get('retry-after'), '20');
      assert.deepEqual(await limited?.json(), { error: 'rate limited' });
      assert.equal(started.length, 3, 'each accepted delivery started, none lost');
    } finally {
      await runtime.stop();
    }
  });

  it('parallelism 1: a second delivery while one runs is refused (reject) or dropped (drop)', async () => {
    const { runtime, url } = await daemon(mkdtempSync(join(tmpdir(), 'agentd-hook-')));
    const { target, started, release } = heldRecorder();
    try {
      runtime.triggers.webhooks.register(route({ parallelism: 1 }), target);
      runtime.triggers.webhooks.register(
        route({ id: 'w.drop', path: '/hooks/drop', parallelism: 1, on_overflow: 'drop' }),
        target,
      );
      const slow = post(`${url}/hooks/ci`, '{}', { 'Idempotency-Key': 'p1' });
      const slowDrop = post(`${url}/hooks/drop`, '{}', { 'Idempotency-Key': 'd1' });
      const deadline = Date.now() + 5_000;
      while (started.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const over = await post(`${url}/hooks/ci`, '{}', { 'Idempotency-Key': 'p2' });
      assert.equal(over.status, 503);
      assert.deepEqual(await over.json(), { error: 'webhook at capacity' });
      const dropped = await post(`${url}/hooks/drop`, '{}', { 'Idempotency-Key': 'd2' });
      assert.deepEqual(await dropped.json(), { status: 'dropped', reason: 'at_capacity' });
      release();
      assert.equal((await slow).status, 202);
      assert.equal((await slowDrop).status, 202);
      assert.equal(started.length, 2);
    } finally {
      release();
      await runtime.stop();
    }
  });

  it('parallelism 1 with on_overflow queue: a second delivery waits for the first, then starts', async () => {
    const { runtime, url } = await daemon(mkdtempSync(join(tmpdir(), 'agentd-hook-')));
    const { target, started, release } = heldRecorder();
    try {
      runtime.triggers.webhooks.register(route({ parallelism: 1, on_overflow: 'queue' }), target);
      const first = post(`${url}/hooks/ci`, '{}', { 'Idempotency-Key': 'q1' });
      const deadline = Date.now() + 5_000;
      while (started.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.equal(started.length, 1, 'premise: the first delivery is running');
      const second = post(`${url}/hooks/ci`, '{}', { 'Idempotency-Key': 'q2' });
      // The second has not started while the first holds the only slot; it answers once it has.
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(started.length, 1, 'the queued delivery waits');
      release();
      assert.equal((await first).status, 202);
      assert.equal((await second).status, 202);
      assert.equal(started.length, 2, 'nothing accepted is lost');
    } finally {
      release();
      await runtime.stop();
    }
  });

  it('idempotency by a body field, a filter, and respond sync answering with the run', async () => {
    const { runtime, url } = await daemon(mkdtempSync(join(tmpdir(), 'agentd-hook-')));
    const { target, started } = recorder();
    target.outcome = async () => ({ status: 'completed', output: { built: true } });
    try {
      const filter = (p: { body: unknown }) => (p.body as { action?: string }).action !== 'ping';
      runtime.triggers.webhooks.register(
        route({ idempotency: { field: 'delivery.id' }, respond: 'sync', filter }),
        target,
      );
      const body = (id: string, action = 'push') => JSON.stringify({ action, delivery: { id } });
      const first = await post(`${url}/hooks/ci`, body('x1'));
      assert.equal(first.status, 200);
      assert.deepEqual(await first.json(), { status: 'completed', output: { built: true }, error: null });
      assert.deepEqual(await (await post(`${url}/hooks/ci`, body('x1'))).json(), {
        status: 'duplicate',
        idempotency_key: 'x1',
      });
      assert.deepEqual(await (await post(`${url}/hooks/ci`, body('x2', 'ping'))).json(), { status: 'filtered' });
      assert.equal(started.length, 1);
    } finally {
      await runtime.stop();
    }
  });
});
