// The supervisor's construction options (re-exported by supervisor.ts, with the shape of a message to accept), and
// the child watchdog's settings read from them.
import type { Config } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { Store } from '../store/store.js';
import type { ToolSurface } from '../tools/surface.js';
import type { WorkPorts } from '../tools/toolOutcome.js';
import { type LivenessLimits, pingIntervalMs } from './liveness.js';
import type { TaskHooks } from './taskHooks.js';
import type { WorkerEntry } from './workerHandle.js';
import type { SpareWatch } from './workerPool.js';

export interface SupervisorOptions {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  /** The registry and MCP connections (see ToolSurface.start); without it turns get the internal tools only. */
  tools?: ToolSurface;
  /** Whoever owns A2A tasks (the listener's backend); without it there are no tasks and no person to ask. */
  tasks?: TaskHooks;
  /** Where message.send and side.start reach the producers that accept their work; without it they are refused. */
  ports?: WorkPorts;
  workerEntry?: WorkerEntry;
  /** Spare workers kept started (default `agent.warm_workers`); 0 spawns each worker on demand. */
  warmWorkers?: number;
  now?: () => number;
  /** Test-only crash points (`inbox.after_put`, `fold.before_commit`): the process SIGKILLs itself there. */
  killAt?: ReadonlySet<string>;
  /** Where turns, tokens, compactions and store latency are counted (served by the metrics listener). */
  metrics?: Metrics;
}

export type { AcceptInput } from './inbox.js';

/** The watchdog's limits from config (lifecycle.pong_timeout, lifecycle.progress_timeout). */
export function livenessLimits(config: Readonly<Config>): LivenessLimits {
  return { pongTimeoutMs: config.lifecycle.pong_timeout, progressTimeoutMs: config.lifecycle.progress_timeout };
}

/** How the pool judges its spares: an unanswered ping older than one ping interval disqualifies a spare. */
export function spareWatch(config: Readonly<Config>, log: Logger, now: () => number): SpareWatch {
  const limits = livenessLimits(config);
  return {
    now,
    limits,
    answerWithinMs: pingIntervalMs(limits),
    onUnhealthy: (pid, { health, detail }) =>
      log.warn('child.unhealthy', { node: null, kind: 'spare', worker_pid: pid, health, detail }),
  };
}
