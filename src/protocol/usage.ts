// Arithmetic on Usage records shared by the worker and the supervisor: sums, deltas between running totals, and
// the event fields of the cache counts. Pure; cache counts stay absent while they are zero.
import type { Usage } from './messages.js';

type CacheKey = 'cache_read_tokens' | 'cache_write_tokens';
const CACHE_KEYS: readonly CacheKey[] = ['cache_read_tokens', 'cache_write_tokens'];

function withCache(base: Usage, value: (key: CacheKey) => number): Usage {
  const out: Usage = { input_tokens: base.input_tokens, output_tokens: base.output_tokens };
  for (const key of CACHE_KEYS) {
    const n = value(key);
    if (n > 0) out[key] = n;
  }
  return out;
}

/** a + b, field by field. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum = { input_tokens: a.input_tokens + b.input_tokens, output_tokens: a.output_tokens + b.output_tokens };
  return withCache(sum, (key) => (a[key] ?? 0) + (b[key] ?? 0));
}

/** What grew from `reported` to `totals` (running totals), never below zero. */
export function usageSince(totals: Usage, reported: Usage): Usage {
  const grown = {
    input_tokens: Math.max(0, totals.input_tokens - reported.input_tokens),
    output_tokens: Math.max(0, totals.output_tokens - reported.output_tokens),
  };
  return withCache(grown, (key) => Math.max(0, (totals[key] ?? 0) - (reported[key] ?? 0)));
}

/** True when any count, cache counts included, is above zero. */
export function hasUsage(u: Usage): boolean {
  return u.input_tokens + u.output_tokens + (u.cache_read_tokens ?? 0) + (u.cache_write_tokens ?? 0) > 0;
}

/**
 * The tokens a budget, `limits.run.tokens`, a goal's or a subagent's token limit is charged: uncached input, output
 * and cache writes (a provider bills a write at least as input: Anthropic 1.25x). Cache reads are reported apart
 * and not charged (they bill at about a tenth of input; docs/guide/budgets.md "Prompt-cache tokens").
 */
export function chargedTokens(u: Usage): number {
  return u.input_tokens + u.output_tokens + (u.cache_write_tokens ?? 0);
}

/** `tokens_cache_read` / `tokens_cache_write` for an event, present only when non-zero. */
export function cacheFields(u: Usage): { tokens_cache_read?: number; tokens_cache_write?: number } {
  const out: { tokens_cache_read?: number; tokens_cache_write?: number } = {};
  if (u.cache_read_tokens) out.tokens_cache_read = u.cache_read_tokens;
  if (u.cache_write_tokens) out.tokens_cache_write = u.cache_write_tokens;
  return out;
}
