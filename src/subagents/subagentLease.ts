// A subagent on replicas (issue 19): its own conversation, `subagent:<handle>`, leased, fenced and adopted like any
// other. A pending inbox row (kind `subagent`) stands for it while it runs, so the lease cycle renews its lease, and
// a replica that adopts it after its holder died gets the row and respawns it. Its end completes the row (fenced).
// A caller waiting here on a subagent another replica runs reads its end from the store. One process (no leases):
// nothing here runs, and the restore respawns as before.
import type { Config } from '../config/types.js';
import type { InboxEvent } from '../domain/inbox.js';
import { isTerminal, type SubagentRecord } from '../domain/subagent.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { InboxAdopter } from '../store/inboxLease.js';
import type { Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import type { Children } from '../supervisor/children.js';
import { type ToolOutcome, type ToolResult, toolDefer } from '../tools/toolOutcome.js';
import type { LiveSubagent } from './subagentRunner.js';
import type { SubagentWaiters } from './waiters.js';

const PREFIX = 'subagent:';

/** Why a worker whose lease moved on was killed (its `killed`): its exit records nothing. */
export const LEASE_LOST = 'lease lost';

/** The conversation (lease key) of subagent `handle`. */
export const subagentLeaseKey = (handle: string): string => `${PREFIX}${handle}`;

/** The handle whose lease key `ctx` is, or null for a conversation. */
export const handleOfLease = (ctx: string): string | null => (ctx.startsWith(PREFIX) ? ctx.slice(PREFIX.length) : null);

/** What the desk does for the lease: respawn an adopted subagent, stop one whose lease moved, answer remote waits. */
export interface LeaseDesk {
  /** The subagent's stored record was adopted here: run it (respawn), or settle it (ended, detached). */
  adopt(record: SubagentRecord): void;
  /** Its lease was lost: the worker dies and nothing more is written for it here. */
  abandon(handle: string): void;
  /** Handles a caller here waits on but no worker here runs. */
  waitedElsewhere(): string[];
  /** A subagent run elsewhere ended (its stored record): its waiters here are answered. */
  endedElsewhere(record: SubagentRecord): void;
  /** Another replica asked to cancel `handle`: true when it runs here (it is cancelled now). */
  cancelHere(handle: string, reason: string): boolean;
  /** Adds stored records not known here (started at another replica). */
  known: Map<string, SubagentRecord>;
}

export interface LeaseDeps {
  store: Store;
  log: Logger;
  now(): number;
  /** How often a wait on another replica's subagent reads the store (a third of the lease). */
  lookMs: number;
}

export class SubagentLeases implements InboxAdopter {
  /** Subagents this replica runs under a lease: handle → the inbox event standing for it. */
  readonly #events = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #looking = false;
  #ticks = 0;
  /** Handles the orphan sweep looked at already. */
  readonly #swept = new Set<string>();
  #unsignal: (() => void) | undefined;

  constructor(
    private readonly deps: LeaseDeps,
    private readonly desk: LeaseDesk,
  ) {}

  /** True on replicas (a store with leases). */
  get shared(): boolean {
    return this.deps.store.leases !== undefined;
  }

  /** Whether the inbox event stands for a subagent this replica runs (the claim does not hand it over again). */
  knows(eventId: string): boolean {
    for (const id of this.#events.values()) if (id === eventId) return true;
    return false;
  }

  /**
   * Before a new subagent's worker starts: its inbox row, whose accept takes its lease here. False when this replica
   * did not take it (it had not claimed yet): the replica whose claim takes the lease adopts and runs it.
   */
  async open(record: SubagentRecord): Promise<boolean> {
    if (!this.shared) return true;
    const event = rowOf(record, this.deps.now());
    this.#events.set(record.handle, event.id);
    const accepted = await this.deps.store.inbox.accept(event);
    if (this.deps.store.leases?.holds(subagentLeaseKey(record.handle)) !== true) {
      this.#events.delete(record.handle);
      return false;
    }
    this.#events.set(record.handle, accepted.record.id);
    return true;
  }

  /**
   * Its row could not be written after its record was: the stored record is marked failed (best effort), so the
   * orphan sweep does not run what its caller was told failed to start. Answers `err`.
   */
  async unopened(record: SubagentRecord, err: unknown): Promise<unknown> {
    if (!this.shared) return err;
    const failed = { ...structuredClone(record), status: 'failed' as const, error: `spawn: ${describeError(err)}` };
    await this.deps.store.subagents.save({ ...failed, updated: this.deps.now() }).catch(() => undefined);
    return err;
  }

  /**
   * Replicas: a stored unfinished subagent with no inbox row (its replica stopped between the two writes) gets its
   * row now, so a claim adopts and runs it (its caller's replayed turn waits on it). Only records older than a lease:
   * a spawn on its way between its two writes is not raced. Each handle is looked at once per process.
   */
  async sweepOrphans(): Promise<void> {
    const before = this.deps.now() - this.deps.lookMs * 3;
    for (const record of await this.deps.store.subagents.list()) {
      const { handle } = record;
      if (isTerminal(record.status) || record.updated > before || this.#swept.has(handle)) continue;
      if (this.#events.has(handle)) continue;
      this.#swept.add(handle);
      const accepted = await this.deps.store.inbox.accept(rowOf(record, this.deps.now()));
      if (!accepted.created) continue; // its row exists: the lease cycle runs it
      this.deps.log.warn('subagent.orphan', { handle });
      if (this.deps.store.leases?.holds(subagentLeaseKey(handle)) !== true || this.#events.has(handle)) continue;
      this.#events.set(handle, accepted.record.id);
      this.desk.adopt(record);
    }
  }

  /** Its end: the row is done (fenced: a replica that lost the lease completes nothing), the lease goes back. */
  close(handle: string, status: string): void {
    const id = this.#events.get(handle);
    if (id === undefined) return;
    this.#events.delete(handle);
    const outcome = { status: 'completed' as const, reply: status };
    this.deps.store.inbox.complete(id, { outcome, conversations: [] }).catch((err: unknown) => {
      this.deps.log.warn('store.checkpoint.fail', { handle, op: 'subagent lease', err: describeError(err) });
    });
  }

  /** Claimed events: the `subagent` ones are adopted here; the others (turns) are returned, in their order. */
  take(events: readonly InboxEvent[]): InboxEvent[] {
    const mine = events.filter((e) => e.kind === 'subagent');
    if (mine.length === 0) return [...events];
    this.claimed(mine).catch((err: unknown) => {
      this.deps.log.warn('inbox.lease.fail', { op: 'subagent adoption', err: describeError(err) });
    });
    return events.filter((e) => e.kind !== 'subagent');
  }

  /** Claimed `subagent` events: each one not run here yet is adopted from its stored record. */
  async claimed(events: readonly InboxEvent[]): Promise<void> {
    const fresh = events.filter((e) => !this.#events.has(e.payload.text));
    if (fresh.length === 0) return;
    const stored = new Map((await this.deps.store.subagents.list()).map((r) => [r.handle, r]));
    for (const event of fresh) {
      const record = stored.get(event.payload.text);
      this.#events.set(event.payload.text, event.id);
      if (record === undefined) {
        this.deps.log.warn('subagent.restore.bad_payload', { handle: event.payload.text });
        this.close(event.payload.text, 'failed');
      } else this.desk.adopt(record);
    }
  }

  /** A conversation lease was lost: a subagent's stops here. */
  lost(ctx: string): boolean {
    const handle = handleOfLease(ctx);
    if (handle === null) return false;
    // Taken again here (a new epoch of a hold that lapsed): what runs here goes on under it.
    if (this.deps.store.leases?.holds(ctx) === true) return true;
    this.#events.delete(handle);
    this.desk.abandon(handle);
    return true;
  }

  /**
   * Replicas: reads, every third of a lease, the ends of the subagents waited on here but run elsewhere, and the
   * cancel requests other replicas stored for the subagents running here (at once on their NOTIFY).
   */
  start(): void {
    if (!this.shared || this.#timer !== undefined) return;
    this.#timer = setInterval(
      () => {
        void this.look();
        this.takeCancels();
        // Once a lease (every third look): reading every record is not cheap.
        if (++this.#ticks % 3 === 0) this.sweepOrphans().catch((err: unknown) => this.warnSweep(err));
      },
      Math.max(50, this.deps.lookMs),
    );
    this.#timer.unref();
    this.#unsignal = this.deps.store.fleet?.onSignal((signal) => {
      if (signal.channel === 'cancel') this.takeCancels();
    });
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#unsignal?.();
    this.#timer = undefined;
    this.#unsignal = undefined;
  }

  /** Replicas: reads the stored records this replica does not know yet (a subagent another replica started). */
  async refresh(): Promise<void> {
    if (!this.shared) return;
    for (const r of await this.deps.store.subagents.list())
      if (!this.desk.known.has(r.handle)) this.desk.known.set(r.handle, r);
  }

  /** `act` on the records as stored: on replicas, a handle not known here is read from the store first. */
  withRecord(handle: string, act: () => ToolOutcome): ToolOutcome {
    if (!this.shared || this.desk.known.has(handle)) return act();
    return toolDefer(this.refresh().then(() => outcomeOf(act())));
  }

  /** A subagent that does not run here: the replica that runs it is asked to cancel it (a durable request). */
  cancelElsewhere(handle: string, reason: string): undefined {
    const fleet = this.deps.store.fleet;
    if (!this.shared || fleet?.requestSubagentCancel === undefined) return;
    fleet.requestSubagentCancel(handle, reason).catch((err: unknown) => {
      this.deps.log.warn('inbox.lease.fail', { handle, op: 'subagent cancel', err: describeError(err) });
    });
  }

  private warnSweep(err: unknown): void {
    this.deps.log.warn('inbox.lease.fail', { op: 'subagent orphans', err: describeError(err) });
  }

  private takeCancels(): void {
    const fleet = this.deps.store.fleet;
    if (fleet?.takeSubagentCancels === undefined) return;
    fleet
      .takeSubagentCancels((handle, reason) => this.desk.cancelHere(handle, reason))
      .catch((err: unknown) => {
        this.deps.log.warn('inbox.lease.fail', { op: 'subagent cancels', err: describeError(err) });
      });
  }

  private async look(): Promise<void> {
    const handles = this.desk.waitedElsewhere();
    if (this.#looking || handles.length === 0) return;
    this.#looking = true;
    try {
      for (const record of await this.deps.store.subagents.list()) {
        if (handles.includes(record.handle) && isTerminal(record.status)) this.desk.endedElsewhere(record);
      }
    } catch (err) {
      this.deps.log.warn('store.checkpoint.fail', { op: 'subagent look', err: describeError(err) });
    } finally {
      this.#looking = false;
    }
  }
}

/** The inbox row standing for `record` while it runs; its dedupe key makes a second write find the first. */
function rowOf(record: SubagentRecord, now: number): InboxEvent {
  return {
    ...{ id: newUlid(now), kind: 'subagent', ts: now, principal: record.requested_by.principal },
    payload: { context_id: subagentLeaseKey(record.handle), text: record.handle },
    dedupe_key: subagentLeaseKey(record.handle),
  };
}

/** The desk's parts its leases act on (subagentDesk.ts). */
export interface DeskInternals {
  records: Map<string, SubagentRecord>;
  live: Map<string, LiveSubagent>;
  waiters: SubagentWaiters;
  respawn(record: SubagentRecord): void;
  cancelLive(record: SubagentRecord, reason: string): void;
  settle(record: SubagentRecord, status: 'failed', result: null, error: string): void;
}

/** A record found at a restore or adopted: unfinished, respawned or failed (detached, or not restorable). */
export function resumeRecord(desk: DeskInternals, log: Pick<Logger, 'warn'>, record: SubagentRecord): void {
  if (isTerminal(record.status)) return;
  if (record.spec === undefined || typeof record.spec.instruction !== 'string') {
    log.warn('subagent.restore.bad_payload', { handle: record.handle });
    desk.settle(record, 'failed', null, 'payload not restorable');
  } else if (record.mode === 'detached') {
    desk.settle(record, 'failed', null, 'interrupted by a restart (detached subagents are not respawned)');
  } else desk.respawn(record);
}

/** The leases of one desk: adoption respawns the stored record, a lost lease kills the worker without a word. */
export function deskLeases(
  deps: { store: Store; log: Logger; now(): number; config: Readonly<Config>; children: Children },
  desk: DeskInternals,
): SubagentLeases {
  const leases: SubagentLeases = new SubagentLeases(
    { ...deps, lookMs: Math.floor(deps.config.store.lease_ttl / 3) },
    {
      adopt: (record) => {
        if (desk.live.has(record.handle)) return;
        desk.records.set(record.handle, record);
        if (!isTerminal(record.status)) return resumeRecord(desk, deps.log, record);
        // It ended but its row stayed pending (its replica died between the two writes).
        desk.waiters.answer(record);
        leases.close(record.handle, record.status);
      },
      abandon: (handle) => {
        const live = desk.live.get(handle);
        if (live === undefined) return;
        // Its end (and its stored sleeps) are the new holder's: the exit settles and deletes nothing here.
        live.done = true;
        live.killed = LEASE_LOST;
        deps.log.info('lease.work_stopped', { ctx: subagentLeaseKey(handle), handle });
        deps.children.kill(live.child, LEASE_LOST);
      },
      waitedElsewhere: () => desk.waiters.handles().filter((h) => !desk.live.has(h)),
      endedElsewhere: (record) => {
        desk.records.set(record.handle, record);
        desk.waiters.answer(record);
      },
      cancelHere: (handle, reason) => {
        const live = desk.live.get(handle);
        if (live === undefined) return false;
        deps.log.info('subagent.kill', { handle, reason });
        desk.cancelLive(live.record, reason);
        return true;
      },
      known: desk.records,
    },
  );
  return leases;
}

/** A tool outcome as the promise of its result (a parked one waits for its time). */
export function outcomeOf(outcome: ToolOutcome): Promise<ToolResult> {
  if (outcome.kind === 'defer') return outcome.promise;
  if (outcome.kind === 'ready') return Promise.resolve({ result: outcome.result, is_error: outcome.is_error });
  const { wakeAt, complete } = outcome;
  return new Promise((resolve) => setTimeout(() => resolve(complete(Date.now())), Math.max(0, wakeAt - Date.now())));
}
