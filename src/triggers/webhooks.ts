// Webhook routes on the A2A listener (producers reference §3.7): in order — method, body, auth (bearer, a header,
// or an HMAC signature over the raw body, compared in constant time), rate (429), filter, idempotency (a
// redelivered key starts nothing new, across restarts), parallelism with its overflow policy, then the firing,
// answered at once (ack) or at the run's end (sync). What a firing starts is the target's business.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { headerOf, readBody, sendJson } from '../a2a/httpIo.js';
import { DaemonError, describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { TimersPort } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import { FIRED_KEY_KEEP_MS, FIRED_KEY_PRUNE_EVERY_MS } from './firedKeys.js';
import type { FireTarget } from './fireTarget.js';
import { type PressureNow, shedCause } from './shedPolicy.js';
import type { TriggerMetrics } from './triggerMetrics.js';
import {
  type Bucket,
  decideOverflow,
  idempotencyKeyOf,
  routeProblem,
  takeToken,
  type WebhookAuth,
  type WebhookPayload,
  type WebhookRoute,
} from './webhookPolicy.js';

export interface WebhookDeps {
  /** Where delivered idempotency keys are remembered (durable: a redelivery after a restart is still seen). */
  keys: Pick<TimersPort, 'seen' | 'remember' | 'forget'>;
  log: Logger;
  now(): number;
  /** The body limit and how long a body may take (the listener's `a2a.max_body_bytes` and `a2a.body_timeout`). */
  limits(): { maxBodyBytes: number; bodyTimeoutMs: number };
  /** `auth: {a2a: true}`: the caller's principal by the listener's `a2a.principals`, or null when refused. */
  caller?(req: IncomingMessage): string | null;
  metrics?: TriggerMetrics;
  /** The pressure gate's reading: under it a delivery is answered 429 and starts nothing (reference §3.7). */
  pressure?(): PressureNow;
}

interface Registered {
  route: WebhookRoute;
  target: FireTarget;
  bucket?: Bucket;
  running: number;
  queue: Array<() => void>;
}

/** How long a delivered idempotency key is remembered: a redelivery later than this starts a run again. */
export const IDEMPOTENCY_KEEP_MS = FIRED_KEY_KEEP_MS;
/** Old keys are pruned at most this often, on a delivery (so an idle daemon does no work). */
const PRUNE_EVERY_MS = FIRED_KEY_PRUNE_EVERY_MS;
const KEY_PREFIX = 'webhook/';

/** The registered webhook routes; the A2A listener hands each request here before answering 404. */
export class WebhookRoutes {
  readonly #byPath = new Map<string, Registered>();
  /** Keys being delivered now: a concurrent redelivery is a duplicate too. */
  readonly #inFlight = new Set<string>();
  #prunedAt: number | null = null;

  constructor(private readonly deps: WebhookDeps) {}

  /** Forgets idempotency keys older than IDEMPOTENCY_KEEP_MS, at most once per PRUNE_EVERY_MS (the store grows not). */
  async #pruneKeys(): Promise<void> {
    const now = this.deps.now();
    if (this.#prunedAt !== null && now - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = now;
    const removed = await this.deps.keys.forget(KEY_PREFIX, now - IDEMPOTENCY_KEEP_MS);
    if (removed > 0) this.deps.log.info('webhook.keys_pruned', { removed });
  }

  /** Registers `route`; throws a config_invalid DaemonError for a bad or taken path. */
  register(route: WebhookRoute, target: FireTarget): void {
    const problem = routeProblem(route, new Set(this.#byPath.keys()));
    if (problem) throw new DaemonError('config_invalid', problem);
    this.#byPath.set(route.path, { route, target, running: 0, queue: [] });
  }

  unregister(path: string): void {
    this.#byPath.delete(path);
  }

  /** Serves the request when a route holds `path` (true), else leaves it to the listener (false). */
  serve(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const at = this.#byPath.get(path);
    if (at === undefined) return false;
    this.#deliver(at, req, res).catch((err: unknown) => {
      this.deps.log.error('webhook.delivery', {
        trigger: at.route.id,
        path,
        outcome: 'crash',
        err: describeError(err),
      });
      sendJson(res, 500, { status: 'error', error: 'internal error' });
    });
    return true;
  }

  async #deliver(at: Registered, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { route } = at;
    const log = (outcome: string, fields: Record<string, unknown> = {}) => {
      this.deps.log.info('webhook.delivery', { trigger: route.id, path: route.path, outcome, ...fields });
      this.deps.metrics?.delivered(outcome);
    };
    const method = req.method ?? 'GET';
    if (!(route.methods ?? ['POST']).includes(method)) return answer(res, 405, { error: 'method not allowed' }, log);
    const { maxBodyBytes, bodyTimeoutMs } = this.deps.limits();
    const read = await readBody(req, maxBodyBytes, bodyTimeoutMs);
    if (!read.ok) return answer(res, read.reason === 'too_large' ? 413 : 408, { error: read.reason }, log);
    // A caller known by its A2A credentials is who the run acts for (issue 17 item 4); other auth says only "allowed".
    const caller = 'a2a' in route.auth ? (this.deps.caller?.(req) ?? null) : undefined;
    if (caller === null || !authentic(route.auth, req, read.text)) {
      this.deps.log.warn('webhook.denied', { trigger: route.id, path: route.path });
      return answer(res, 401, { error: 'authentication failed' }, log);
    }
    const shed = this.deps.pressure ? shedCause(this.deps.pressure(), route.priority ?? 'normal') : null;
    if (shed !== null) {
      this.deps.log.warn('start.shed', { trigger: route.id, kind: 'webhook', cause: shed });
      return answer(res, 429, { error: `shedding: ${shed}` }, log, { 'Retry-After': '30' });
    }
    if (route.rate) {
      const taken = takeToken(at.bucket, route.rate, this.deps.now());
      at.bucket = taken.bucket;
      if (!taken.ok) {
        const headers = { 'Retry-After': String(taken.retryAfterS) };
        return answer(res, 429, { error: 'rate limited' }, log, headers);
      }
    }
    const payload = payloadOf(req, route.path, read.text);
    if (route.filter && !route.filter(payload)) return answer(res, 200, { status: 'filtered' }, log);
    const key = idempotencyKeyOf(route, payload.headers, payload.body);
    const stored = key === null ? null : `${KEY_PREFIX}${route.id}/${createHash('sha256').update(key).digest('hex')}`;
    if (stored !== null) await this.#pruneKeys();
    // In flight is asked again after the store's answer: a redelivery racing this one may have started meanwhile.
    const seen = stored !== null && (this.#inFlight.has(stored) || (await this.deps.keys.seen(stored)));
    if (stored !== null && (seen || this.#inFlight.has(stored))) {
      this.deps.log.info('webhook.duplicate', { trigger: route.id, path: route.path });
      return answer(res, 200, { status: 'duplicate', idempotency_key: key }, log);
    }
    const overflow = decideOverflow(route, at.running);
    if (overflow === 'reject' || overflow === 'drop') {
      this.deps.log.warn('webhook.overflow', { trigger: route.id, path: route.path, on_overflow: overflow });
      if (overflow === 'drop') return answer(res, 200, { status: 'dropped', reason: 'at_capacity' }, log);
      return answer(res, 503, { error: 'webhook at capacity' }, log);
    }
    if (stored !== null) this.#inFlight.add(stored);
    try {
      if (overflow === 'queue') await new Promise<void>((resolve) => at.queue.push(resolve));
      at.running++;
      await this.#fire(at, { stored, caller }, payload, res, log);
    } finally {
      if (stored !== null) this.#inFlight.delete(stored);
    }
  }

  /** Fires the target, remembers the key once the start is accepted, and answers ack or sync. */
  async #fire(
    at: Registered,
    who: { stored: string | null; caller: string | undefined },
    payload: WebhookPayload,
    res: ServerResponse,
    log: (outcome: string, fields?: Record<string, unknown>) => void,
  ): Promise<void> {
    const { route, target } = at;
    const { stored, caller } = who;
    const now = this.deps.now();
    const fireKey = stored ?? `webhook/${route.id}/${newUlid(now)}`;
    try {
      // The target is idempotent on the key: a crash before the key is remembered fires it again, harmlessly.
      await target.fire(route.id, now, fireKey, payload, caller);
      if (stored !== null) await this.deps.keys.remember(stored, now);
      // A waiting step's callback (`wait on: webhook`): the hit is held on its run, nothing was started.
      if (route.respond === 'resume') return answer(res, 200, { status: 'resumed', resumed: 1 }, log);
      this.deps.log.info('start.fired', { trigger: route.id, kind: 'webhook' });
      this.deps.metrics?.fired('webhook');
      const workflow = route.workflow ?? route.id;
      if (route.respond !== 'sync' || target.outcome === undefined) {
        return answer(res, 202, { status: 'accepted', workflow }, log);
      }
      const ended = await target.outcome(fireKey);
      const body = { status: ended.status, output: ended.output ?? null, error: ended.error ?? null };
      answer(res, ended.status === 'completed' ? 200 : 502, body, log);
    } catch (err) {
      answer(res, 500, { status: 'error', error: describeError(err) }, log);
    } finally {
      at.running--;
      at.queue.shift()?.();
    }
  }
}

function answer(
  res: ServerResponse,
  status: number,
  body: unknown,
  log: (outcome: string, fields?: Record<string, unknown>) => void,
  headers?: Record<string, string>,
): void {
  log(String(status));
  sendJson(res, status, body, headers ? { headers } : {});
}

function payloadOf(req: IncomingMessage, path: string, raw: string): WebhookPayload {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(', ');
  }
  let body: unknown = raw;
  try {
    body = JSON.parse(raw);
  } catch {
    // Not JSON: the body stays text.
  }
  return { method: req.method ?? 'GET', path, headers, body, raw_body: raw };
}

/** The route's auth against the request; secrets compared in constant time. */
function authentic(auth: WebhookAuth, req: IncomingMessage, raw: string): boolean {
  if ('none' in auth || 'a2a' in auth) return true;
  if ('bearer' in auth) return sameText(headerOf(req, 'authorization') ?? '', `Bearer ${auth.bearer}`);
  if ('header' in auth) return sameText(headerOf(req, auth.header.name) ?? '', auth.header.equals);
  const { secret, header = 'X-Signature', prefix = 'sha256=' } = auth.hmac;
  const expected = `${prefix}${createHmac('sha256', secret).update(raw).digest('hex')}`;
  return sameText(headerOf(req, header) ?? '', expected);
}

function sameText(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  // Hashing first makes the lengths equal, so the compare never leaks the expected length.
  return timingSafeEqual(a, b) && given === expected;
}
