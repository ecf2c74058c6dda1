// When a worker serves another turn and how many spares the pool keeps (issue 14; DESIGN.md process model).
// Pure: counts, sizes and the clock in, a decision out; nothing here touches a process.

/** How long a worker may live: turns served and resident memory (`agent.worker_max_turns`, `…_max_rss`). */
export interface ReuseLimits {
  maxTurns: number;
  maxRssBytes: number;
}

/** Whether the worker about to run its `served + 1`-th turn may stay for another one after it. */
export function mayReuse(served: number, limits: ReuseLimits): boolean {
  return served + 1 < limits.maxTurns;
}

export type AfterTurn = { kind: 'reuse' } | { kind: 'recycle'; reason: string };

/**
 * What to do with a worker that finished a turn and went idle: a turn the supervisor was ending (cancel, deadline,
 * unhealthy, a failed frame) takes its process group with it; past either limit the worker is replaced.
 */
export function afterTurn(
  w: { served: number; rssBytes: number; ending: boolean; poolClosed: boolean; staleMcp?: boolean },
  limits: ReuseLimits,
): AfterTurn {
  if (w.ending) return { kind: 'recycle', reason: 'its turn was being ended' };
  if (w.poolClosed) return { kind: 'recycle', reason: 'the pool is closed' };
  if (w.staleMcp) return { kind: 'recycle', reason: 'its MCP servers changed' };
  if (w.served >= limits.maxTurns) return { kind: 'recycle', reason: `served ${w.served} turns` };
  if (w.rssBytes > limits.maxRssBytes) {
    return { kind: 'recycle', reason: `rss ${Math.round(w.rssBytes / 1_048_576)} MB over the bound` };
  }
  return { kind: 'reuse' };
}

/**
 * Whether a worker keeps an MCP connection the config in force no longer describes (a reload removed or changed
 * its server): `held` are the server specs its turns connected, `inForce` the configured ones, both as JSON.
 */
export function holdsStaleMcp(held: ReadonlySet<string>, inForce: ReadonlySet<string>): boolean {
  for (const spec of held) if (!inForce.has(spec)) return true;
  return false;
}

/** The highest number of children live at once lately; it decays to the current count after `windowMs`. */
export interface DemandPeak {
  value: number;
  at: number;
}

export function nextPeak(peak: DemandPeak, live: number, now: number, windowMs: number): DemandPeak {
  if (live >= peak.value || now - peak.at > windowMs) return { value: live, at: now };
  return peak;
}

/**
 * Spares to keep: enough that the recent peak of parallel children finds a started worker each (a burst does not
 * wait for cold spawns), at least `base` (`agent.warm_workers`); the peak counts at most `max` (`agent.max_parallel_turns`).
 */
export function spareTarget(d: { base: number; peak: number; live: number; max: number }): number {
  return Math.max(d.base, Math.min(d.peak, d.max) - d.live);
}

/** What the model connections of a config need: `intelligence` as compiled (top level and providers). */
export interface ModelConnections {
  endpoints: readonly string[];
  dialect: string;
  providers: Readonly<Record<string, { endpoints: readonly string[]; dialect: string }>>;
}

/**
 * What a spare imports while it waits (`AGENTD_WORKER_PRELOAD`, comma-separated). A spare holds only its frame pipe
 * and imports a turn's modules at its first turn (worker/main.ts), which a reused worker pays once; `turn` when
 * every turn gets a fresh worker (`worker_max_turns: 1`), so no turn waits for them. `mcp` (the MCP client) when MCP
 * servers are configured, `tls` (node:https) when a model connection may be https (an https endpoint, or Bedrock,
 * whose endpoint is https whatever is declared), so the first model call does not wait for it; a config of plain
 * http connections (a local model) leaves TLS out of its spares.
 */
export function sparePreloads(intel: ModelConnections, mcpServers: number, maxTurns: number): string[] {
  const connections = [intel, ...Object.values(intel.providers)];
  const tls = connections.some((c) => c.dialect === 'bedrock' || c.endpoints.some((e) => !e.startsWith('http://')));
  return [...(maxTurns <= 1 ? ['turn'] : []), ...(mcpServers > 0 ? ['mcp'] : []), ...(tls ? ['tls'] : [])];
}

/**
 * Whether the next spare preloads a turn's modules: one past the base always does; a base spare does while turns
 * run or a recent peak of them holds (the next turn is near: a lean spare would put the import on its path), and
 * stays lean only on an idle daemon.
 */
export function preloadsTurn(d: { index: number; base: number; peak: number; live: number }): boolean {
  return d.index >= d.base || d.peak > 0 || d.live > 0;
}

/**
 * What a preloading spare (preloadsTurn) preloads: it answers a peak of parallel demand and will run a
 * turn soon, so it imports a turn's modules while it waits too; the base spares of an idle daemon stay lean.
 */
export function demandPreload(preload: string | undefined): string {
  const wanted = (preload ?? '').split(',').filter((p) => p !== '');
  return wanted.includes('turn') ? wanted.join(',') : ['turn', ...wanted].join(',');
}
