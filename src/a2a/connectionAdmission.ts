// Which connection goes when the listener is full (issue 13 item 1): pure, over a view of the open connections.
// It must not touch sockets; the tracker applies the decision.

/** One open connection as the policy sees it: requests in flight, whether it ever answered one, when it last acted. */
export interface ConnectionView<K> {
  key: K;
  /** Requests whose head arrived and whose response has not ended. */
  busy: number;
  /** True once a response on it has ended: a client that authenticated and was answered, kept alive. */
  served: boolean;
  /** When the connection opened or last finished a response (ms). */
  lastActive: number;
}

export type Admission<K> = { kind: 'admit' } | { kind: 'evict'; victim: K } | { kind: 'refuse' };

/**
 * Under `max` open connections a new one is admitted. At the cap it takes the place of an idle connection (no
 * request in flight): one that never completed a request goes first, the oldest of those; a kept-alive served one
 * only when no such remains, since a flood's sockets are always newer than a served client's last response. When
 * every connection is answering a request, the new one is refused.
 */
export function admitConnection<K>(open: Iterable<ConnectionView<K>>, max: number): Admission<K> {
  let count = 0;
  let victim: ConnectionView<K> | null = null;
  for (const view of open) {
    count += 1;
    if (view.busy === 0 && (victim === null || evictsBefore(view, victim))) victim = view;
  }
  if (count < max) return { kind: 'admit' };
  return victim === null ? { kind: 'refuse' } : { kind: 'evict', victim: victim.key };
}

function evictsBefore<K>(a: ConnectionView<K>, b: ConnectionView<K>): boolean {
  if (a.served !== b.served) return !a.served;
  return a.lastActive < b.lastActive;
}
