// This instance's hold on the inbox: a claim at restore, then a claim again every third of the lease, which renews
// the leases this instance holds (one that runs longer than a lease keeps its events from a second owner) and takes
// the pending events whose foreign lease expired (another instance name's, after a restart under a new name).
import type { InboxEvent } from '../domain/inbox.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { FleetView, InboxPort, LeaseView } from './store.js';

/** How long a claim holds the inbox's pending events for this instance when nothing else is configured. */
export const INBOX_LEASE_MS = 30_000;

/** Replicas (postgres) lease conversations for `store.lease_ttl`; one process holds everything for INBOX_LEASE_MS. */
export function inboxLeaseMs(store: { kind: string }, config: { store: { lease_ttl: number } }): number {
  return store.kind === 'postgres' ? config.store.lease_ttl : INBOX_LEASE_MS;
}

export interface InboxLeaseDeps {
  inbox: Pick<InboxPort, 'claim'>;
  /** The instance's name (`agent.name`): a restart under the same name takes its events back at once. */
  owner: string;
  leaseMs: number;
  now: () => number;
  log: Logger;
  /** True when the event is already queued or running here (its claim only renewed the lease). */
  known(eventId: string): boolean;
  /** Before claimed events queue: rebuild the tasks a crash lost after their inbox write. */
  recover(events: readonly InboxEvent[]): Promise<void>;
  /** Claimed events this instance does not run yet, in inbox order: they queue (again). */
  claimed(events: InboxEvent[]): void;
  /** Replicas: acts on the cancel requests another replica stored for an event this instance queues or runs. */
  cancels?: { cancelEvent(eventId: string, reason: string): void };
}

/** Events that stand for other work than a turn (a subagent's): adopted by their owner, never queued. */
export interface InboxAdopter {
  knows(eventId: string): boolean;
  /** Adopts the events that are its own; returns the others (turns), in order. */
  take(events: readonly InboxEvent[]): InboxEvent[];
  /** A conversation lost (or taken again): true when it was its own, so the turns' side is not told. */
  lost(conversation: string): boolean;
}

export class InboxLease {
  private timer: NodeJS.Timeout | undefined;
  /** Replicas: gives up unrenewed holds ten times a lease, so a stalled renewal stops work before the TTL ends. */
  private expiry: NodeJS.Timeout | undefined;
  /** Replicas: extends the live holds five times a lease, outside the queue the claims wait in. */
  private beat: NodeJS.Timeout | undefined;
  private beating = false;
  private unsubscribe: (() => void) | undefined;
  private unsignal: (() => void) | undefined;
  /** A claim at the moment the earliest foreign lease on pending work runs out (a dead replica's). */
  private lapse: NodeJS.Timeout | undefined;
  private leases: LeaseView | undefined;
  private inFlight = false;
  /** A wake-up came while a claim was running: claim again once it ends (the running one may predate it). */
  private again = false;
  private fleet: FleetView | undefined;
  private adopter: InboxAdopter | undefined;

  constructor(private readonly deps: InboxLeaseDeps) {}

  /**
   * At start-up: claims every pending event this instance may run and queues them all, then keeps claiming.
   * Replicas: `lost` hears each conversation whose lease this replica lost (its work stops, interfaces §4.4).
   */
  async restore(
    shared?: { leases?: LeaseView | undefined; fleet?: FleetView | undefined },
    lost?: (conversation: string) => void,
    /** The claimed events that are not turns (a subagent's own) and their leases; absent: every event is a turn. */
    adopter?: InboxAdopter,
  ): Promise<InboxEvent[]> {
    const leases = shared?.leases;
    this.fleet = shared?.fleet;
    this.adopter = adopter;
    const pending = this.turns(await this.claim());
    await this.deps.recover(pending);
    this.deps.claimed(pending);
    this.start(leases, lost);
    return pending;
  }

  private known(eventId: string): boolean {
    return this.deps.known(eventId) || this.adopter?.knows(eventId) === true;
  }

  private turns(events: InboxEvent[]): InboxEvent[] {
    return this.adopter ? this.adopter.take(events) : events;
  }

  private claim(): Promise<InboxEvent[]> {
    const { inbox, owner, leaseMs, now } = this.deps;
    return inbox.claim(owner, leaseMs, now());
  }

  /** Claims again every third of the lease, until `stop`. */
  private start(leases?: LeaseView, onLost?: (conversation: string) => void): void {
    const adopter = this.adopter;
    const lost = onLost && ((ctx: string) => void (adopter?.lost(ctx) === true || onLost(ctx)));
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.renew(), Math.max(1, Math.floor(this.deps.leaseMs / 3)));
    this.timer.unref();
    this.leases = leases;
    this.listen();
    if (leases === undefined || lost === undefined) return;
    const offLost = leases.onLost(lost);
    // A lease taken here (it was free, expired or released): a copy of the conversation this replica kept may
    // predate the other holders' writes, so it goes like a lost one's and the next use reads the stored one.
    const offTaken = leases.onTaken?.(lost);
    this.unsubscribe = () => {
      offLost();
      offTaken?.();
    };
    this.expiry = setInterval(() => leases.expire(), Math.max(1, Math.floor(this.deps.leaseMs / 10)));
    this.expiry.unref();
    if (leases.heartbeat === undefined) return;
    this.beat = setInterval(() => this.heartbeat(leases), Math.max(1, Math.floor(this.deps.leaseMs / 5)));
    this.beat.unref();
  }

  private heartbeat(leases: LeaseView): void {
    if (this.beating) return;
    this.beating = true;
    leases
      .heartbeat?.()
      .catch((err: unknown) => this.deps.log.warn('inbox.lease.fail', { err: describeError(err) }))
      .finally(() => {
        this.beating = false;
      });
  }

  stop(): void {
    clearInterval(this.timer);
    clearInterval(this.expiry);
    clearInterval(this.beat);
    clearTimeout(this.lapse);
    this.unsubscribe?.();
    this.unsignal?.();
    this.timer = undefined;
    this.expiry = undefined;
    this.beat = undefined;
    this.unsubscribe = undefined;
    this.unsignal = undefined;
  }

  /** Replicas: new pending work claims now; a cancel request is looked at now (the sweep remains the fallback). */
  private listen(): void {
    const { log } = this.deps;
    if (this.fleet === undefined) return;
    this.unsignal = this.fleet.onSignal((signal) => {
      log.info('lease.notify', { channel: signal.channel, lag_ms: signal.lagMs });
      if (signal.channel === 'inbox') this.renew();
      else if (signal.channel === 'cancel') this.takeCancels();
    });
  }

  private takeCancels(): void {
    const { log, cancels } = this.deps;
    const known = (id: string) => this.known(id);
    if (this.fleet === undefined || cancels === undefined) return;
    const act = (id: string): boolean => {
      if (!known(id)) return false;
      cancels.cancelEvent(id, 'task canceled at another replica');
      return true;
    };
    this.fleet.takeCancels(act).catch((err: unknown) => log.warn('inbox.lease.fail', { err: describeError(err) }));
  }

  /** Claims again when the earliest foreign lease on pending work runs out, when that is before the next sweep. */
  private armLapse(): void {
    clearTimeout(this.lapse);
    const at = this.leases?.nextForeignExpiry?.() ?? null;
    if (at === null || this.timer === undefined) return;
    const ms = Math.max(0, at - this.deps.now()) + 1;
    if (ms >= this.deps.leaseMs / 3) return;
    this.lapse = setTimeout(() => this.renew(), ms);
    this.lapse.unref();
  }

  private renew(): void {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = true;
    // Filtered as soon as the claim answers: the store runs it in order with the folds, so an event it still saw
    // pending is one whose fold has not committed yet, and whose job is therefore still known.
    this.claim()
      .then((events) => this.turns(events.filter((e) => !this.known(e.id))))
      .then(async (fresh) => {
        if (fresh.length === 0) return;
        this.deps.log.info('inbox.lease.claimed', { events: fresh.length });
        await this.deps.recover(fresh);
        this.deps.claimed(fresh);
      })
      .catch((err: unknown) => this.deps.log.warn('inbox.lease.fail', { err: describeError(err) }))
      .finally(() => {
        this.inFlight = false;
        this.armLapse();
        this.takeCancels();
        if (!this.again) return;
        this.again = false;
        this.renew();
      });
  }
}
