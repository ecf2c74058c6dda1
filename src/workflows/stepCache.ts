// A step's `cache` (producers reference §2.3, §2.7 item 4): its `done` output kept in memory under
// `_cache/<sha256("<kind>:<id>:<rendered cache.key, else the whole rendered spec>")>` for `ttl` (forever without),
// and a later attempt or run whose key finds a live entry is `done` with it at once (`step.cache_hit`).
import { createHash } from 'node:crypto';
import type { StepCache } from '../domain/workflow.js';
import type { MemoryPort } from '../store/store.js';
import { parseWorkflowDuration } from './durations.js';
import { isStartKind } from './nodeKinds.js';
import { renderValue } from './templates.js';

/**
 * Kinds whose result is not a value of their spec (control flow, waits, run variables): a cache there could only be
 * ignored, so it is refused at load.
 */
const UNCACHEABLE: ReadonlySet<string> = new Set(['finish', 'switch', 'sleep', 'wait', 'assign', 'transform', 'fail']);

/** Parses the common `cache` field of a step of kind `kind`; problems come without the workflow/step prefix. */
export function parseCache(raw: unknown, kind: string, problems: string[]): StepCache | undefined {
  if (raw === undefined) return undefined;
  if (isStartKind(kind) || UNCACHEABLE.has(kind)) {
    problems.push(`cache: the result of a "${kind}" step cannot be cached; remove the field`);
    return undefined;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push('cache must be {key?, ttl?}');
    return undefined;
  }
  const { key, ttl, ...rest } = raw as Record<string, unknown>;
  for (const name of Object.keys(rest)) problems.push(`unknown cache field "${name}" (allowed: key, ttl)`);
  let ttlMs: number | null = null;
  if (ttl !== undefined) {
    const parsed = parseWorkflowDuration(ttl);
    if (parsed.ok && parsed.ms > 0) ttlMs = parsed.ms;
    else problems.push(`cache.ttl: ${parsed.ok ? 'must be more than 0' : parsed.error}`);
  }
  return { key: key ?? null, ttlMs };
}

/** The memory key of a step's cached output, or an error naming the unrenderable `cache.key`. */
export function cacheKeyOf(
  cache: StepCache,
  step: { id: string; kind: string },
  spec: Readonly<Record<string, unknown>>,
  scope: Record<string, unknown>,
): { ok: true; key: string } | { ok: false; error: string } {
  let basis: unknown = spec;
  if (cache.key !== null) {
    const rendered = renderValue(cache.key, scope);
    if (!rendered.ok) return { ok: false, error: `step "${step.id}": cache.key: ${rendered.error}` };
    basis = rendered.value;
  }
  const text = typeof basis === 'string' ? basis : (JSON.stringify(basis) ?? 'null');
  const digest = createHash('sha256').update(`${step.kind}:${step.id}:${text}`).digest('hex');
  return { ok: true, key: `_cache/${digest}` };
}

/** The cached output under `key` still live at `now`, else undefined (memory drops an expired entry). */
export async function readCache(
  memory: MemoryPort,
  key: string,
  now: number,
): Promise<{ output: unknown } | undefined> {
  const found = await memory.get(key, now);
  return found ? { output: found.value } : undefined;
}

/** Keeps `output` under `key` for the cache's `ttl`. */
export async function writeCache(
  memory: MemoryPort,
  key: string,
  cache: StepCache,
  output: unknown,
  now: number,
): Promise<void> {
  const expires = cache.ttlMs === null ? null : now + cache.ttlMs;
  await memory.set({ key, value: output ?? null, expires, updated: now });
}
