// The client feed's publishing side (issue 18 item 1): numbers events through the store's feed port (durable,
// monotonic across restarts), tells live streams, and applies retention to the feed and terminal tasks. It never
// decides what an event means: the task backend builds the entries (feedEntries.ts).
import type { FeedEntry, FeedEvent } from '../domain/feed.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { Store } from '../store/store.js';
import { NOTE_KEY_PREFIX } from './sentMessages.js';

/** What publishers need: calls that never block and never throw. */
export interface FeedSink {
  publish(entry: Omit<FeedEntry, 'ts'>): void;
  /** Entries were committed in another transaction (a fold's): live streams get them from the store. */
  committed(): void;
}

export interface FeedRetention {
  events: number;
  eventsAgeMs: number;
  tasks: number;
  tasksAgeMs: number;
}

/** How often retention runs (and once at start). */
const PRUNE_EVERY_MS = 60_000;
/** Events read per step when live streams catch up with the store. */
const DELIVER_PAGE = 512;

export class FeedHub implements FeedSink {
  private pending: FeedEntry[] = [];
  private chain: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(events: readonly FeedEvent[]) => void>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** The newest seq live streams were given: they get every later one in seq order, whoever appended it. */
  private delivered = 0;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly now: () => number,
    /** Read at each pass: a reload's retention applies to the next one. */
    private readonly retention: () => FeedRetention,
  ) {
    this.chain = store.feed.bounds().then(
      (b) => {
        this.delivered = b.newest;
      },
      () => {},
    );
  }

  /** Runs retention now and then every minute. */
  start(): void {
    this.prune();
    this.timer = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  /** Queues the entry; entries published in one tick are stored in one transaction, in publish order. */
  publish(entry: Omit<FeedEntry, 'ts'>): void {
    if (this.closed) return;
    this.pending.push({ ts: this.now(), ...entry });
    if (this.pending.length === 1) queueMicrotask(() => this.flush());
  }

  committed(): void {
    if (!this.closed) this.chain = this.chain.then(() => this.deliver());
  }

  /** Calls `listener` with every batch stored from now on, in seq order; returns the unsubscribe. */
  subscribe(listener: (events: readonly FeedEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  read(after: number, limit: number): Promise<FeedEvent[]> {
    return this.store.feed.after(after, limit);
  }

  bounds(): ReturnType<Store['feed']['bounds']> {
    return this.store.feed.bounds();
  }

  /** Stores what is queued, stops retention; later publishes are dropped (the store is about to close). */
  async close(): Promise<void> {
    this.flush();
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.chain;
  }

  private flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.chain = this.chain.then(async () => {
      try {
        await this.store.feed.append(batch);
      } catch (err) {
        this.log.error('feed.append_failed', { events: batch.length, error: describeError(err) });
      }
      await this.deliver();
    });
  }

  /** Gives live streams what the store holds past `delivered`: this hub's appends and the folds' alike. */
  private async deliver(): Promise<void> {
    try {
      for (;;) {
        const events = await this.store.feed.after(this.delivered, DELIVER_PAGE);
        const last = events.at(-1);
        if (!last) return;
        this.delivered = last.seq;
        for (const listener of this.listeners) listener(events);
        if (events.length < DELIVER_PAGE) return;
      }
    } catch (err) {
      this.log.warn('feed.deliver_failed', { error: describeError(err) });
    }
  }

  private prune(): void {
    const r = this.retention();
    const now = this.now();
    this.chain = this.chain.then(async () => {
      try {
        const events = await this.store.feed.prune(r.events, now - r.eventsAgeMs);
        const tasks = await this.store.tasks.prune(r.tasks, now - r.tasksAgeMs);
        // A noted message's key lives as long as its task could (retain_age), however soon the count drops it.
        await this.store.timers.forget(NOTE_KEY_PREFIX, now - r.tasksAgeMs);
        if (events + tasks > 0) this.log.info('feed.pruned', { events, tasks });
      } catch (err) {
        this.log.warn('feed.prune_failed', { error: describeError(err) });
      }
    });
  }
}
