// Trigger metrics on prom-client (issue 17 item 6): firings by start kind, schedule occurrences caught up after an
// outage, and webhook deliveries by the status they were answered with. Counted where each thing happens.
import type { Metrics } from '../obs/metrics.js';

export interface TriggerMetrics {
  /** A start node fired (`schedule`, `webhook`, `loop`, `event`, `signal`). */
  fired(kind: string): void;
  /** Occurrences a late schedule fired for what it missed while down (catch_up `one` or `all`). */
  caughtUp(count: number): void;
  /** A webhook delivery was answered with `outcome` (the HTTP status, e.g. `202`, `401`, `429`). */
  delivered(outcome: string): void;
}

/** Counts nothing (tests and embedders without metrics). */
export const NO_TRIGGER_METRICS: TriggerMetrics = { fired() {}, caughtUp() {}, delivered() {} };

/** The counters, registered once on the instance's metrics. */
export function triggerMetrics(metrics: Pick<Metrics, 'counter'>): TriggerMetrics {
  const firings = metrics.counter('agentd_trigger_firings_total', 'Start-node firings, by kind.', ['kind']);
  const caught = metrics.counter(
    'agentd_schedule_catch_ups_total',
    'Schedule occurrences missed while down and fired late (catch_up).',
  );
  const deliveries = metrics.counter(
    'agentd_webhook_deliveries_total',
    'Webhook deliveries, by the HTTP status answered.',
    ['outcome'],
  );
  return {
    fired: (kind) => firings.inc({ kind }),
    caughtUp: (count) => caught.inc({}, count),
    delivered: (outcome) => deliveries.inc({ outcome }),
  };
}
