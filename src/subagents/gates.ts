// The gates of `subagent.run` in the reference's order, with its exact refusal texts (reference §1.4), and the
// spawn-rate bucket. Pure policy: counts, limits and the clock come in as arguments; a decision comes out.
import { parseCpuSeconds, parseRate, parseSize } from '../config/subagentKeys.js';
import {
  isTerminal,
  SUBAGENT_MODES,
  type SubagentMode,
  type SubagentPriority,
  type SubagentRecord,
} from '../domain/subagent.js';

export { parseCpuSeconds, parseRate, parseSize };

export interface SubagentLimits {
  depth: number;
  breadth: number;
  total: number;
  rate: string;
  /** 0: breadth − 1 (at least 1). */
  per_caller: number;
}

/** What the gates count: live records, live + recently active subagents, and the caller's own depth. */
export interface GateView {
  live: number;
  /** Live subagents of this caller (its turn, or the calling subagent). */
  callerLive?: number;
  recent: number;
  /** 0 for a turn; a subagent caller's own depth (the child would be one deeper). */
  callerDepth: number;
  /** The pressure gate's level and cause (supervisor/pressure.ts): gates 7 and 10. */
  pressure: { level: 'ok' | 'warn' | 'shed'; cause: string | null };
  /** Gate 8: the granted servers' tags form the lethal trifecta and security.allow_trifecta is off. */
  trifecta?: boolean;
  /** A calling subagent's subtree (or one above it) spent its `limits.tokens`: why (ceiling.ts). */
  ceiling?: string;
}

/**
 * Whether servers with these tags together reach private data, take untrusted content and can send it out: the
 * lethal trifecta of gate 8 (reference §1.4). Untagged servers add nothing.
 */
export function formsTrifecta(tagsPerServer: Iterable<readonly string[] | undefined>): boolean {
  const all = new Set<string>();
  for (const tags of tagsPerServer) for (const tag of tags ?? []) all.add(tag);
  return ['private_data', 'untrusted_content', 'external_comms'].every((t) => all.has(t));
}

/** Live subagents and the count gate 4 reads (spawnLog.ts), with those being minted (gates 3 and 4). */
export function countView(
  records: Iterable<SubagentRecord>,
  recent: number,
  minting: number,
  callerDepth: number,
  pressure: GateView['pressure'],
): GateView {
  let live = minting;
  for (const r of records) if (!isTerminal(r.status)) live++;
  return { live, recent: recent + minting, callerDepth, pressure };
}

/** The spawn-rate token bucket (reference §1.4 gate 6): starts full, refills `burst` tokens per `periodMs`. */
export interface RateBucket {
  rate: string;
  burst: number;
  periodMs: number;
  tokens: number;
  at: number;
}

export interface RunRequest {
  instruction: string;
  mode: string;
  limits: Record<string, unknown>;
  priority: string;
}

export type GateVerdict =
  | {
      ok: true;
      mode: SubagentMode;
      priority: SubagentPriority;
      memoryBytes?: number;
      cpuSeconds?: number;
      bucket: RateBucket;
    }
  | { ok: false; error: string; gate: string; bucket: RateBucket };

/** The bucket for `rate` at `now`: kept while the rate text is unchanged, rebuilt full when a reload changed it. */
export function bucketFor(prev: RateBucket | null, rate: string, now: number): RateBucket {
  if (prev !== null && prev.rate === rate) return prev;
  const parsed = parseRate(rate) ?? { burst: 8, periodMs: 2_000 };
  return { rate, ...parsed, tokens: parsed.burst, at: now };
}

/**
 * The bucket a start begins with: full, less the spawns the stored spawn log shows within one period, so a
 * restart does not hand out a fresh burst (gate 6 holds across a restart; agentd's bucket starts full).
 */
export function seedBucket(rate: string, spentWithin: (periodMs: number) => number, now: number): RateBucket {
  const fresh = bucketFor(null, rate, now);
  return { ...fresh, tokens: Math.max(0, fresh.burst - spentWithin(fresh.periodMs)) };
}

/** Refills by the time passed, then spends one token if there is one. */
export function takeToken(bucket: RateBucket, now: number): { bucket: RateBucket; ok: boolean } {
  const refill = (Math.max(0, now - bucket.at) * bucket.burst) / bucket.periodMs;
  const tokens = Math.min(bucket.burst, bucket.tokens + refill);
  if (tokens < 1) return { bucket: { ...bucket, tokens, at: now }, ok: false };
  return { bucket: { ...bucket, tokens: tokens - 1, at: now }, ok: true };
}

const TRIFECTA =
  'subagent.run refused: the requested MCP servers form a lethal trifecta (untrusted input + sensitive + egress); ' +
  'set security.allow_trifecta to override';

const refuse = (gate: string, error: string, bucket: RateBucket): GateVerdict => ({ ok: false, gate, error, bucket });

/** Gates 1-10 of the reference, in order; the rate token is spent even when a later gate refuses. */
export function checkRun(req: RunRequest, view: GateView, limits: SubagentLimits, bucket: RateBucket, now: number) {
  if (req.instruction.trim() === '')
    return refuse('instruction', 'subagent.run: instruction must be non-empty', bucket);
  if (!SUBAGENT_MODES.includes(req.mode as SubagentMode)) {
    return refuse('mode', 'subagent.run: mode must be sync|async|detached|warm', bucket);
  }
  if (view.live >= limits.breadth) {
    const error = `subagent.run refused: ${view.live} subagents live (limits.subagents.breadth = ${limits.breadth})`;
    return refuse('breadth', error, bucket);
  }
  // One caller may not take every breadth slot (reference §5 item 24, RFC 0009's per-node child cap).
  const perCaller = limits.per_caller > 0 ? limits.per_caller : Math.max(1, limits.breadth - 1);
  if ((view.callerLive ?? 0) >= perCaller) {
    const error = `subagent.run refused: ${view.callerLive} subagents live for this caller (limits.subagents.per_caller = ${perCaller})`;
    return refuse('per_caller', error, bucket);
  }
  if (view.recent >= limits.total) {
    const error = `subagent.run refused: ${view.recent} subagents spawned (limits.subagents.total = ${limits.total})`;
    return refuse('total', error, bucket);
  }
  if (view.callerDepth >= limits.depth) {
    const error = `subagent.run refused: delegation depth ${view.callerDepth} reaches limits.subagents.depth = ${limits.depth}`;
    return refuse('depth', error, bucket);
  }
  // Not one of agentd's gates: the subtree token ceiling (reference §5 item 24), before the rate token is spent.
  if (view.ceiling !== undefined) return refuse('ceiling', `subagent.run refused: ${view.ceiling}`, bucket);
  const token = takeToken(bucket, now);
  if (!token.ok)
    return refuse('rate', 'subagent.run refused: spawn rate exceeded (limits.subagents.rate)', token.bucket);
  const { level, cause } = view.pressure;
  if (level === 'shed') {
    const error = `subagent.run refused: ${cause} pressure (shedding new work; in-flight work drains)`;
    return refuse('pressure', error, token.bucket);
  }
  if (view.trifecta) return refuse('trifecta', TRIFECTA, token.bucket);
  const verdict = checkCaps(req, token.bucket);
  // Gate 10 comes after the caps read: a bad priority is named before low-priority work is shed.
  if (verdict.ok && verdict.priority === 'low' && level === 'warn') {
    const error = `subagent.run refused: ${cause} pressure (low-priority work sheds at warn)`;
    return refuse('pressure', error, token.bucket);
  }
  return verdict;
}

/** Gate 9: memory, cpu and priority read. */
function checkCaps(req: RunRequest, bucket: RateBucket): GateVerdict {
  const caps: { memoryBytes?: number; cpuSeconds?: number } = {};
  try {
    if (req.limits.memory !== undefined) caps.memoryBytes = parseSize(req.limits.memory);
  } catch (err) {
    return refuse('limits', `subagent.run: limits.memory: ${(err as Error).message}`, bucket);
  }
  try {
    if (req.limits.cpu !== undefined) caps.cpuSeconds = parseCpuSeconds(req.limits.cpu);
  } catch (err) {
    return refuse('limits', `subagent.run: limits.cpu: ${(err as Error).message}`, bucket);
  }
  if (!['low', 'normal', 'high'].includes(req.priority)) {
    return refuse(
      'priority',
      `subagent.run: priority must be low|normal|high, got ${JSON.stringify(req.priority)}`,
      bucket,
    );
  }
  return { ok: true, mode: req.mode as SubagentMode, priority: req.priority as SubagentPriority, bucket, ...caps };
}
