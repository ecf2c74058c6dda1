// Reloading the config (interfaces §3.6): compile the same sources exactly as at start, refuse an invalid result or
// one that touches a restart-only path as a whole, else swap the live config in one step. A turn already running
// keeps the snapshot it launched with; every turn launched after the swap reads the new config.
import { planReload } from '../config/reloadDiff.js';
import type { Config } from '../config/types.js';
import { describeError } from '../errors.js';
import { type Logger, redact } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { LiveConfig } from './liveConfig.js';

/** What asked for the reload (logged): SIGHUP, the operator's command, `--watch-config`, an embedder. */
export type ReloadSource = 'signal' | 'operator' | 'watch' | 'api';

export type ReloadReport =
  | { result: 'applied'; generation: number; changed: string[] }
  | { result: 'unchanged'; generation: number }
  | { result: 'invalid'; generation: number; error: string }
  | { result: 'restart_required'; generation: number; paths: string[] }
  | { result: 'stopping'; generation: number };

export interface ReloaderDeps {
  live: LiveConfig;
  /** Compiles the config sources again; throws the same one-line error as at start. */
  load(): Readonly<Config>;
  /** The runtime's own overrides on a compiled config (its listeners), so they never read as a change. */
  settle(next: Readonly<Config>): Readonly<Config>;
  /** Runs after a swap: connections, instruction files. Never throws (its failures are logged). */
  applied(changed: readonly string[]): void;
  /** True once a stop started: the config then stays as it is until the process ends. */
  stopping(): boolean;
  log: Logger;
  metrics: Metrics;
}

/** A reloader; `generation` counts the configs in force (1 = the one started with). */
export function reloader(deps: ReloaderDeps): { reload(source: ReloadSource): ReloadReport; generation(): number } {
  let generation = 1;
  deps.metrics.gauge(
    'agentd_config_generation',
    'Configs in force since start (1 = the start config).',
    () => generation,
  );
  const count = (result: 'applied' | 'rejected' | 'other'): void => deps.metrics.configReloads.inc({ result });
  const reload = (source: ReloadSource): ReloadReport => {
    if (deps.stopping()) {
      deps.log.warn('config.reload.stopping', { source, generation });
      count('other');
      return { result: 'stopping', generation };
    }
    let next: Readonly<Config>;
    try {
      next = deps.settle(deps.load());
    } catch (err) {
      const error = redact(describeError(err));
      deps.log.error('config.reload.invalid', { source, generation, error });
      count('rejected');
      return { result: 'invalid', generation, error };
    }
    const plan = planReload(deps.live.current(), next);
    if (plan.kind === 'unchanged') {
      deps.log.info('config.reload.unchanged', { source, generation });
      count('other');
      return { result: 'unchanged', generation };
    }
    if (plan.kind === 'restart_required') {
      deps.log.error('config.reload.restart_required', { source, generation, paths: plan.paths });
      count('rejected');
      return { result: 'restart_required', generation, paths: plan.paths };
    }
    deps.live.swap(next);
    generation++;
    deps.log.info('config.reloaded', { source, generation, changed: plan.changed });
    count('applied');
    deps.applied(plan.changed);
    return { result: 'applied', generation, changed: plan.changed };
  };
  return { reload, generation: () => generation };
}
