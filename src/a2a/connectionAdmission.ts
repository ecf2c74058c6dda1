// Which connection goes when the listener is full (issue 13 item 1): pure, over a view of the open connections.
// It must not touch sockets; the tracker applies the decision.

/** One open connection as the policy sees it: requests in flight and when it last did anything. */
export interface ConnectionView<K> {
  key: K;
  /** Requests whose head arrived and whose response has not ended. */
  busy: number;
  /** When the connection opened or last finished a response (ms). */
  lastActive: number;
}

export type Admission<K> = { kind: 'admit' } | { kind: 'evict'; victim: K } | { kind: 'refuse' };

/**
 * Under `max` open connections a new one is admitted. At the cap it takes the place of the connection idle the
 * longest (no request in flight: a flood that never sends a head cannot lock out a client that does); when every
 * connection is answering a request, the new one is refused.
 */
export function admitConnection<K>(open: Iterable<ConnectionView<K>>, max: number): Admission<K> {
  let count = 0;
  let oldest: ConnectionView<K> | null = null;
  for (const view of open) {
    count += 1;
    if (view.busy === 0 && (oldest === null || view.lastActive < oldest.lastActive)) oldest = view;
  }
  if (count < max) return { kind: 'admit' };
  return oldest === null ? { kind: 'refuse' } : { kind: 'evict', victim: oldest.key };
}
