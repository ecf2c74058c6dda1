// A replica's lease metrics (issue 19 item 5; interfaces reference §4.4), read from its lease book when scraped:
// what it holds, what it adopted from dead replicas, and the writes its fence refused.
import type { FleetView, LeaseView } from '../store/store.js';
import type { Metrics } from './metrics.js';

export function registerLeaseGauges(m: Metrics, leases: LeaseView): void {
  m.gauge('agentd_leases_held', 'Conversation leases this replica holds now.', () => leases.held().size);
  m.gauge('agentd_lease_adoptions', 'Leases this replica took from an expired holder since start.', () => {
    return leases.counts.adoptions;
  });
  m.gauge('agentd_fenced_writes_refused', 'Writes of this replica the lease fence refused since start.', () => {
    return leases.counts.fenced;
  });
}

/** Observes each NOTIFY's lag (the sender's clock to this replica's; replicas on one host share a clock). */
export function observeNotifyLag(m: Metrics, fleet: FleetView): () => void {
  return fleet.onSignal((s) => m.notifyLag.observe({ channel: s.channel }, s.lagMs / 1000));
}
