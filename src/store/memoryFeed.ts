// The client feed held in process memory (MemoryStore): the same numbering and retention as the SQLite table.
import type { FeedEvent } from '../domain/feed.js';
import type { FeedPort } from './store.js';

/** A FeedPort over an array; `seq` keeps counting after a prune, as SQLite's AUTOINCREMENT does. */
export function memoryFeedPort(): FeedPort {
  let events: FeedEvent[] = [];
  let newest = 0;
  const copy = (e: FeedEvent): FeedEvent => JSON.parse(JSON.stringify(e)) as FeedEvent;
  return {
    async append(entries) {
      const added = entries.map((entry) => copy({ ...entry, seq: ++newest }));
      events.push(...added);
      return added.map(copy);
    },
    async after(after, limit) {
      return events
        .filter((e) => e.seq > after)
        .slice(0, Math.max(0, limit))
        .map(copy);
    },
    async bounds() {
      return { oldest: events[0]?.seq ?? null, newest };
    },
    async prune(keep, before) {
      const cut = Math.max(0, events.length - Math.max(0, keep));
      const kept = events.filter((e, i) => i >= cut && e.ts >= before);
      const dropped = events.length - kept.length;
      events = kept;
      return dropped;
    },
  };
}
