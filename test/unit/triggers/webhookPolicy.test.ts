// Webhook delivery policy: the rate bucket, the overflow decision, where the idempotency key is, route checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideOverflow,
  idempotencyKeyOf,
  routeProblem,
  takeToken,
  type WebhookRoute,
} from '../../../src/triggers/webhookPolicy.js';

const route = (over: Partial<WebhookRoute> = {}): WebhookRoute => ({
  id: 'w.h',
  path: '/hooks/a',
  auth: { none: true },
  ...over,
});

describe('takeToken', () => {
  it('allows a burst, refuses past it with Retry-After = ceil(per/burst), and refills over time', () => {
    const rate = { burst: 2, per_ms: 10_000 };
    const a = takeToken(undefined, rate, 0);
    const b = takeToken(a.bucket, rate, 0);
    const c = takeToken(b.bucket, rate, 0);
    assert.deepEqual([a.ok, b.ok, c.ok], [true, true, false]);
    assert.equal(c.retryAfterS, 5);
    assert.equal(takeToken(c.bucket, rate, 4_999).ok, false);
    assert.equal(takeToken(c.bucket, rate, 5_000).ok, true, 'one token back after per/burst');
  });
});

describe('decideOverflow', () => {
  it('proceeds under the parallelism, then follows on_overflow (reject by default)', () => {
    assert.equal(decideOverflow(route(), 100), 'proceed');
    assert.equal(decideOverflow(route({ parallelism: 2 }), 1), 'proceed');
    assert.equal(decideOverflow(route({ parallelism: 2 }), 2), 'reject');
    assert.equal(decideOverflow(route({ parallelism: 2, on_overflow: 'queue' }), 2), 'queue');
  });
});

describe('idempotencyKeyOf', () => {
  it('reads Idempotency-Key by default, a renamed header, a body field, or nothing', () => {
    assert.equal(idempotencyKeyOf(route(), { 'idempotency-key': 'k1' }, {}), 'k1');
    assert.equal(idempotencyKeyOf(route(), {}, {}), null);
    assert.equal(idempotencyKeyOf(route({ idempotency: { header: 'X-Delivery' } }), { 'x-delivery': 'd' }, {}), 'd');
    assert.equal(idempotencyKeyOf(route({ idempotency: { field: 'a.b' } }), {}, { a: { b: 7 } }), '7');
    assert.equal(idempotencyKeyOf(route({ idempotency: { field: 'a.b' } }), {}, 'text'), null);
    assert.equal(idempotencyKeyOf(route({ idempotency: false }), { 'idempotency-key': 'k1' }, {}), null);
  });
});

describe('routeProblem', () => {
  it("refuses a relative path, the A2A listener's own paths and a taken one", () => {
    assert.equal(routeProblem(route(), new Set()), null);
    assert.match(routeProblem(route({ path: 'hooks' }), new Set()) ?? '', /must start with \//);
    assert.match(routeProblem(route({ path: '/a2a' }), new Set()) ?? '', /A2A listener's own/);
    assert.match(routeProblem(route(), new Set(['/hooks/a'])) ?? '', /taken/);
  });
});
