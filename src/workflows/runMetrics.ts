// The workflow run metrics (producers reference §2.15): registered at start whether or not the engine is loaded
// yet (lazyWorkflows.ts), so a scrape shows them from the first; the engine's run watch counts on the same ones.
import type { Counter, Metrics } from '../obs/metrics.js';

/** The run counters (absent without metrics). */
export interface RunCounters {
  started: Counter | undefined;
  ended: Counter | undefined;
  steps: Counter | undefined;
}

/** Registers the run counters and the live runs gauge (`live` is read when scraped); the counters to count on. */
export function runMetrics(metrics: Pick<Metrics, 'counter' | 'gauge'> | undefined, live: () => number): RunCounters {
  const started = metrics?.counter('agentd_runs_started_total', 'Workflow runs started.');
  const ended = metrics?.counter('agentd_runs_total', 'Workflow runs that ended, by final status.', ['status']);
  const steps = metrics?.counter('agentd_steps_total', 'Workflow step attempts that ended, by status.', ['status']);
  metrics?.gauge('agentd_runs_active', 'Workflow runs live now (running or paused).', live);
  return { started, ended, steps };
}
