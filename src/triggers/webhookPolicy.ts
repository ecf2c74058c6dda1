// Webhook delivery policy (producers reference §3.7): the route's checked shape, the rate bucket, the overflow
// decision and where the idempotency key comes from. Pure: the clock and the request are arguments.

export type WebhookAuth =
  | { none: true }
  | { bearer: string }
  | { hmac: { secret: string; header?: string; prefix?: string } }
  | { header: { name: string; equals: string } }
  /** The caller authenticates as one of `a2a.principals` (its bearer token); the run acts for that principal. */
  | { a2a: true };

/** One webhook route, as a workflow's `webhook` start node (or a test) registers it. */
export interface WebhookRoute {
  /** The trigger id (e.g. `<workflow>.<node>`): keys and events name it. */
  id: string;
  /** Named in the `accepted` answer; default the trigger id. */
  workflow?: string;
  path: string;
  /** Default ["POST"]. */
  methods?: string[];
  auth: WebhookAuth;
  /** At most `burst` deliveries per `per_ms`, refilled evenly. */
  rate?: { burst: number; per_ms: number };
  /** Deliveries started at once; past it `on_overflow` decides. */
  parallelism?: number;
  on_overflow?: 'reject' | 'drop' | 'queue';
  /** Where the idempotency key is: a header (default `Idempotency-Key`), a body field, or nowhere (false). */
  idempotency?: false | { header: string } | { field: string };
  /** ack (default): 202 once the start is accepted; sync: wait for the run's end; resume: 200 a waiting step's hit. */
  respond?: 'ack' | 'sync' | 'resume';
  /** The workflow's priority: a `low` one is shed while pressure warns, any while it sheds. Default normal. */
  priority?: 'low' | 'normal' | 'high';
  /** Deliveries it refuses are answered and start nothing (the workflow engine compiles CEL into it). */
  filter?: (payload: WebhookPayload) => boolean;
}

/** The start step's output for a webhook (producers reference §3.2). */
export interface WebhookPayload {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  raw_body: string;
}

export interface Bucket {
  tokens: number;
  at: number;
}

/** Takes one token from the route's bucket at `now`: ok, or refused with the Retry-After seconds. */
export function takeToken(
  bucket: Bucket | undefined,
  rate: { burst: number; per_ms: number },
  now: number,
): { ok: boolean; bucket: Bucket; retryAfterS: number } {
  const refill = rate.burst / rate.per_ms;
  const start = bucket ?? { tokens: rate.burst, at: now };
  const tokens = Math.min(rate.burst, start.tokens + (now - start.at) * refill);
  if (tokens >= 1) return { ok: true, bucket: { tokens: tokens - 1, at: now }, retryAfterS: 0 };
  return { ok: false, bucket: { tokens, at: now }, retryAfterS: Math.ceil(rate.per_ms / rate.burst / 1_000) };
}

/** What a delivery over the route's parallelism does: proceed, or be answered at capacity. */
export function decideOverflow(route: WebhookRoute, running: number): 'proceed' | 'reject' | 'drop' | 'queue' {
  if (route.parallelism === undefined || running < route.parallelism) return 'proceed';
  return route.on_overflow ?? 'reject';
}

/** The delivery's idempotency key, or null when the route has none or the delivery carries none. */
export function idempotencyKeyOf(route: WebhookRoute, headers: Record<string, string>, body: unknown): string | null {
  const where = route.idempotency ?? { header: 'Idempotency-Key' };
  if (where === false) return null;
  if ('header' in where) return headers[where.header.toLowerCase()] || null;
  let value: unknown = body;
  for (const part of where.field.split('.')) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

/** Why a route cannot be registered, or null: a path that is not absolute or is one of the A2A listener's own. */
export function routeProblem(route: WebhookRoute, taken: ReadonlySet<string>): string | null {
  if (!route.path.startsWith('/') || route.path.includes('?')) return `webhook ${route.id}: path must start with /`;
  if (['/', '/a2a'].includes(route.path) || route.path.startsWith('/.well-known/')) {
    return `webhook ${route.id}: path ${route.path} is the A2A listener's own`;
  }
  if (taken.has(route.path)) return `webhook ${route.id}: path ${route.path} is taken by another webhook`;
  if (route.rate && (route.rate.burst < 1 || route.rate.per_ms <= 0))
    return `webhook ${route.id}: rate needs burst ≥ 1`;
  return null;
}
