// What a reload would change, and whether it may: the changed key paths between the running and the newly compiled
// config, and those under a restart-only path (interfaces §3.6). Pure: two configs in, a decision out; values never
// leave here (a path may hold a secret, its name may not).
import type { Config } from './types.js';

/**
 * Paths a running instance cannot take over: what was bound, opened or spawned once at start (the store, the
 * listeners, the logger, the watchdog's limits, the warm pool, the startup prompt, the skills catalogue built from
 * skills.sources) and the instance's identity.
 */
export const RESTART_ONLY: readonly string[] = [
  'agent.name',
  'agent.prompt',
  'agent.warm_workers',
  'store',
  'a2a.listen',
  'a2a.tls',
  'a2a.max_body_bytes',
  'a2a.max_connections',
  'a2a.header_timeout',
  'a2a.body_timeout',
  'observability.metrics_addr',
  'observability.log_level',
  // The tracer is built once at start (runtime/startRuntime.ts); a new endpoint takes a restart.
  'observability.otlp_endpoint',
  'lifecycle.pong_timeout',
  'lifecycle.progress_timeout',
  // The job-or-daemon shape decides the signals trapped and the reloads taken at start (cli/run.ts).
  'lifecycle.run_until',
  'skills.sources',
];

export type ReloadPlan =
  | { kind: 'unchanged' }
  | { kind: 'restart_required'; paths: string[] }
  | { kind: 'apply'; changed: string[] };

/** Decides a reload: nothing to do, refused as a whole (any restart-only path changed), or apply `changed`. */
export function planReload(running: Readonly<Config>, next: Readonly<Config>): ReloadPlan {
  const changed = changedPaths(running, next);
  if (changed.length === 0) return { kind: 'unchanged' };
  const paths = changed.filter(isRestartOnly);
  return paths.length > 0 ? { kind: 'restart_required', paths } : { kind: 'apply', changed };
}

/** True for `path` at or under a restart-only path. */
export function isRestartOnly(path: string): boolean {
  return RESTART_ONLY.some((root) => path === root || path.startsWith(`${root}.`));
}

/**
 * Leaf paths whose values differ, sorted: mappings recurse (a route, a model or an MCP server added or removed is
 * its own path); lists and scalars compare whole.
 */
export function changedPaths(a: unknown, b: unknown, prefix = ''): string[] {
  if (isMapping(a) && isMapping(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((key) => changedPaths(a[key], b[key], prefix === '' ? key : `${prefix}.${key}`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
