// The supervisor's construction options (re-exported by supervisor.ts, with the shape of a message to accept).
import type { Config } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { Store } from '../store/store.js';
import type { ToolSurface } from '../tools/surface.js';
import type { TaskHooks } from './taskHooks.js';
import type { WorkerEntry } from './workerHandle.js';

export interface SupervisorOptions {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  /** The registry and MCP connections (see ToolSurface.start); without it turns get the internal tools only. */
  tools?: ToolSurface;
  /** Whoever owns A2A tasks (the listener's backend); without it there are no tasks and no person to ask. */
  tasks?: TaskHooks;
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
