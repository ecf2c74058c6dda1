// The subtree token ceiling (reference §5 item 24, RFC 0009's tree-token ceiling): a subagent's `limits.tokens`
// bounds what it and every subagent below it spend together, not its own calls alone. Pure: the records in, the
// chain's remainder, a refusal or the charge out.
import type { SubagentRecord } from '../domain/subagent.js';

/** A subagent whose subtree has spent its `limits.tokens`. */
export interface CeilingHit {
  handle: string;
  spent: number;
  limit: number;
}

/** The subagent `handle` and every calling subagent above it still held, nearest first. */
export function lineage(records: ReadonlyMap<string, SubagentRecord>, handle: string | null): SubagentRecord[] {
  const chain: SubagentRecord[] = [];
  const seen = new Set<string>();
  for (let at = handle; at !== null && !seen.has(at); ) {
    seen.add(at);
    const record = records.get(at);
    if (!record) break;
    chain.push(record);
    at = record.requested_by.subagent;
  }
  return chain;
}

const spentBy = (r: SubagentRecord): number => r.tree_tokens ?? 0;

/** The nearest subagent of the chain whose subtree has spent its ceiling, or null. */
export function ceilingHit(chain: readonly SubagentRecord[]): CeilingHit | null {
  for (const r of chain) {
    const limit = r.spec.limits.max_tokens;
    if (spentBy(r) >= limit) return { handle: r.handle, spent: spentBy(r), limit };
  }
  return null;
}

/** What a new child of the chain's first subagent may spend at most: the tightest remainder up the chain. */
export function remainder(chain: readonly SubagentRecord[]): number {
  let left = Number.POSITIVE_INFINITY;
  for (const r of chain) left = Math.min(left, r.spec.limits.max_tokens - spentBy(r));
  return Math.max(0, left);
}

/** Adds `tokens` to the subtree spend of every subagent of the chain (the spender first). */
export function chargeTree(chain: readonly SubagentRecord[], tokens: number): void {
  for (const r of chain) r.tree_tokens = spentBy(r) + tokens;
}

/** Why a spawn or a model call of the subtree is refused. */
export function ceilingReason(hit: CeilingHit): string {
  return `subtree token ceiling: ${hit.handle} and its subagents spent ${hit.spent} of limits.tokens = ${hit.limit}`;
}

/** The chain's refusal, or null while every ceiling has room. */
export function refusalOf(chain: readonly SubagentRecord[]): string | null {
  const hit = ceilingHit(chain);
  return hit ? ceilingReason(hit) : null;
}
