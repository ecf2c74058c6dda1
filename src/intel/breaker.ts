// Per-endpoint circuit breaker and endpoint choice (reference §5.1): closed → open after 3 consecutive
// failover-class failures, cooldown 5 s doubling to 60 s, half-open lets one probe through. Pure: takes `now`.

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface EndpointHealth {
  state: BreakerState;
  /** Consecutive failover-class failures while closed. */
  failures: number;
  /** The cooldown of the current (or last) opening; 0 when the endpoint has not opened since its last success. */
  cooldownMs: number;
  /** While open: when the endpoint may be probed again. */
  openUntil: number;
  /** While half-open: the one probe is out. */
  probing: boolean;
}

/** One entry per endpoint, in failover order. */
export type Breaker = readonly EndpointHealth[];

export interface BreakerPolicy {
  threshold: number;
  baseCooldownMs: number;
  maxCooldownMs: number;
}

const DEFAULT_BREAKER_POLICY: Readonly<BreakerPolicy> = {
  threshold: 3,
  baseCooldownMs: 5_000,
  maxCooldownMs: 60_000,
};

/** A state change worth an `intel.health` event. */
export interface BreakerTransition {
  endpoint: number;
  state: BreakerState;
}

export interface BreakerStep {
  breaker: Breaker;
  transitions: BreakerTransition[];
}

const HEALTHY: EndpointHealth = { state: 'closed', failures: 0, cooldownMs: 0, openUntil: 0, probing: false };

export function newBreaker(endpoints: number): Breaker {
  return Array.from({ length: endpoints }, () => ({ ...HEALTHY }));
}

function replace(b: Breaker, index: number, health: EndpointHealth): Breaker {
  return b.map((h, i) => (i === index ? health : h));
}

/**
 * The lowest-index endpoint not in `skip` that may be tried now (sticky primary): closed, half-open with no probe
 * out, or open with its cooldown over (it turns half-open and the caller's attempt is the probe). null = none.
 */
export function nextEndpoint(
  b: Breaker,
  now: number,
  skip: ReadonlySet<number> = new Set(),
): BreakerStep & { index: number | null } {
  for (let i = 0; i < b.length; i++) {
    const h = b[i] as EndpointHealth;
    if (skip.has(i)) continue;
    if (h.state === 'closed') return { breaker: b, transitions: [], index: i };
    if (h.state === 'half_open' && !h.probing) {
      return { breaker: replace(b, i, { ...h, probing: true }), transitions: [], index: i };
    }
    if (h.state === 'open' && now >= h.openUntil) {
      const probe: EndpointHealth = { ...h, state: 'half_open', probing: true };
      return { breaker: replace(b, i, probe), transitions: [{ endpoint: i, state: 'half_open' }], index: i };
    }
  }
  return { breaker: b, transitions: [], index: null };
}

/** A closed endpoint may be retried in place; a half-open one had its single probe. */
export function mayRetry(b: Breaker, index: number): boolean {
  return b[index]?.state === 'closed';
}

/** A success closes the endpoint and forgets its failures and cooldown. */
export function recordSuccess(b: Breaker, index: number): BreakerStep {
  const h = b[index];
  if (h === undefined) return { breaker: b, transitions: [] };
  const transitions: BreakerTransition[] = h.state === 'closed' ? [] : [{ endpoint: index, state: 'closed' }];
  return { breaker: replace(b, index, { ...HEALTHY }), transitions };
}

/** A failover-class failure: counts while closed (opening at the threshold); re-opens a failed probe, doubled. */
export function recordFailure(
  b: Breaker,
  index: number,
  now: number,
  policy: BreakerPolicy = DEFAULT_BREAKER_POLICY,
): BreakerStep {
  const h = b[index];
  if (h === undefined || h.state === 'open') return { breaker: b, transitions: [] };
  if (h.state === 'half_open') {
    const cooldownMs = Math.min(Math.max(h.cooldownMs, policy.baseCooldownMs) * 2, policy.maxCooldownMs);
    const open: EndpointHealth = { ...h, state: 'open', cooldownMs, openUntil: now + cooldownMs, probing: false };
    return { breaker: replace(b, index, open), transitions: [{ endpoint: index, state: 'open' }] };
  }
  const failures = h.failures + 1;
  if (failures < policy.threshold) return { breaker: replace(b, index, { ...h, failures }), transitions: [] };
  const cooldownMs = policy.baseCooldownMs;
  const open: EndpointHealth = { state: 'open', failures, cooldownMs, openUntil: now + cooldownMs, probing: false };
  return { breaker: replace(b, index, open), transitions: [{ endpoint: index, state: 'open' }] };
}

/**
 * A fatal answer (401, other 4xx, a malformed body) is not a health signal, but it ends a probe:
 * the endpoint stays half-open and may be probed again.
 */
export function releaseProbe(b: Breaker, index: number): Breaker {
  const h = b[index];
  if (h === undefined || !h.probing) return b;
  return replace(b, index, { ...h, probing: false });
}
