// Conversation leases and the write fence of a replica (issue 19 items 2 and 3; reference interfaces §4.4).
// A replica runs a conversation's events only while it holds the conversation's lease; taking a lease bumps its
// epoch, the fencing token every write for that conversation is checked against inside its own transaction.
// The inbox claim is the lease cycle: it renews the leases with pending work, releases idle ones, adopts expired
// ones (a higher epoch) and leases the pending events of the conversations held, in replay order.
import type pg from 'pg';
import type { InboxEvent } from '../domain/inbox.js';
import { DaemonError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { InboxRow } from './sqliteRows.js';
import { toInboxEvent } from './sqliteRows.js';
import type { LeaseView } from './store.js';
import { compareInbox } from './writeRules.js';

type Query = (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

/** What a replica's leases tell: the lease events and refused writes, with their counts for the metrics. */
export type LeaseLog = Pick<Logger, 'info' | 'warn'>;

const INBOX_COLUMNS = 'id, kind, ts, principal, payload, dedupe_key, status, outcome';

const SQL = {
  // Leases with pending work stay ours; a lease whose conversation has none is released (the epoch stays). Only
  // the holds this replica still keeps: one it gave up (run out unrenewed) is released and taken again at a new
  // epoch, so whatever it started under the old one is fenced.
  renew: `UPDATE conversation_leases l SET lease_until = $2
    WHERE holder = $1 AND conversation_id = ANY($3::text[]) AND EXISTS (SELECT 1 FROM inbox i WHERE i.status = 'pending' AND i.conversation = l.conversation_id)
    RETURNING conversation_id, epoch`,
  // Runs right after renew: a held lease renew did not stamp with this cycle's `until` has no pending work.
  release: `UPDATE conversation_leases SET holder = NULL, lease_until = 0 WHERE holder = $1 AND lease_until <> $2`,
  pending: `SELECT DISTINCT conversation FROM inbox WHERE status = 'pending' AND conversation IS NOT NULL
    ORDER BY conversation`,
  // Conversations with pending work and no lease row yet are taken at epoch 1 (an existing row is left alone here:
  // no lock is taken on another replica's lease).
  insert: `INSERT INTO conversation_leases (conversation_id, holder, epoch, lease_until)
    SELECT c, $1, 1, $2::bigint FROM unnest($3::text[]) AS c ORDER BY c ON CONFLICT DO NOTHING
    RETURNING conversation_id, epoch`,
  // A free or expired lease among them is taken, its epoch up by one. A row another transaction has locked (its
  // live holder folding, another replica taking it) is skipped: waiting on it would stall this replica's writes.
  acquire: `UPDATE conversation_leases l SET holder = $1, epoch = l.epoch + 1, lease_until = $2
    WHERE l.conversation_id IN (SELECT conversation_id FROM conversation_leases
      WHERE conversation_id = ANY($3::text[]) AND (holder IS NULL OR lease_until <= $4) AND holder IS DISTINCT FROM $1
      ORDER BY conversation_id FOR UPDATE SKIP LOCKED)
    RETURNING conversation_id, epoch`,
  claimHeld: `UPDATE inbox SET owner = $1, lease_until = $2
    WHERE status = 'pending' AND conversation IN (SELECT conversation_id FROM conversation_leases WHERE holder = $1)
    RETURNING ${INBOX_COLUMNS}`,
  // The accepting replica takes the lease of the new message's conversation at once when it has none, or when it
  // is free or expired and nobody else is taking it (a locked row is skipped: its holder runs the message).
  takeNew: `INSERT INTO conversation_leases (conversation_id, holder, epoch, lease_until) VALUES ($1, $2, 1, $3)
    ON CONFLICT DO NOTHING RETURNING conversation_id, epoch`,
  takeFree: `UPDATE conversation_leases l SET holder = $2, epoch = l.epoch + 1, lease_until = $3
    WHERE l.conversation_id IN (SELECT conversation_id FROM conversation_leases
      WHERE conversation_id = $1 AND (holder IS NULL OR lease_until <= $4) FOR UPDATE SKIP LOCKED)
    RETURNING conversation_id, epoch`,
  // After a fold: the lease goes back once its conversation has no pending message, so the replica that accepts
  // the next one takes it at once.
  releaseIdle: `UPDATE conversation_leases SET holder = NULL, lease_until = 0
    WHERE conversation_id = $1 AND holder = $2 AND epoch = $3
      AND NOT EXISTS (SELECT 1 FROM inbox WHERE status = 'pending' AND conversation = $1)`,
  // The earliest lease another replica holds on pending work: when it lapses unrenewed, claim at once.
  nextExpiry: `SELECT min(l.lease_until) AS until FROM conversation_leases l
    WHERE l.holder IS NOT NULL AND l.holder <> $1 AND l.lease_until > $2
      AND EXISTS (SELECT 1 FROM inbox i WHERE i.status = 'pending' AND i.conversation = l.conversation_id)`,
  // The heartbeat: the given holds, each at the epoch held here, live a lease longer (a lost one is not touched).
  heartbeat: `UPDATE conversation_leases l SET lease_until = $2 FROM unnest($3::text[], $4::bigint[]) AS h(c, e)
    WHERE l.conversation_id = h.c AND l.epoch = h.e AND l.holder = $1 AND l.lease_until < $2
    RETURNING l.conversation_id, l.epoch`,
  holderOf: 'SELECT holder, lease_until FROM conversation_leases WHERE conversation_id = $1',
  fence:
    'SELECT conversation_id, holder, epoch, lease_until FROM conversation_leases WHERE conversation_id = ANY($1) ORDER BY conversation_id FOR UPDATE',
} as const;

/** How many lost conversations a replica remembers for the fence. */
const GONE_MAX = 10_000;

/** A lease row as the cycle's statements return it. */
interface Held {
  conversation_id: string;
  epoch: number;
}

/** The leases this replica holds: conversation → epoch, and the time each must be renewed by. */
export class LeaseBook implements LeaseView {
  readonly #held = new Map<string, { epoch: number; until: number }>();
  readonly #lost = new Set<(conversation: string) => void>();
  readonly #taken = new Set<(conversation: string) => void>();
  /**
   * Conversations this replica held and lost (or gave up), with the epoch it held, until it takes them again: its
   * late writes for them stay refused even once the lease is free (released by the next holder) or expired.
   */
  readonly #gone = new Map<string, number | null>();
  /** Counters for the replica's metrics. */
  readonly counts = { adoptions: 0, fenced: 0 };
  /** Renews this replica's other holds (postgresRunLeases.ts) on each heartbeat. */
  alsoBeat?: (q: Query) => Promise<void>;
  /** The lease holder's name: the claiming owner (agent.name) at this replica. */
  #holder: string;
  /** The claim's clock minus the wall clock at the last claim: the fence reads lease times on the claim's clock. */
  #skew = 0;
  /** The lease length of the last claim (what an accept takes a lease for). */
  #leaseMs = 0;
  /** The earliest foreign lease on pending work as of the last claim (claim clock), or null. */
  #nextExpiry: number | null = null;

  constructor(
    /** This process among the replicas (several may share one agent.name). */
    readonly replica: string,
    private readonly log: LeaseLog,
    private readonly wall: () => number,
    /** Autocommit statements on the pool, for the heartbeat (outside the store's ordered calls). */
    private readonly direct?: Query,
  ) {
    this.#holder = replica;
  }

  /** Who holds this replica's leases in the table. */
  get holder(): string {
    return this.#holder;
  }

  get leaseMs(): number {
    return this.#leaseMs;
  }

  /** Held and within its hold (which ends a fifth of the lease early). */
  holds(conversation: string): boolean {
    const mine = this.#held.get(conversation);
    return mine !== undefined && mine.until > this.wall() + this.#skew;
  }

  onLost(listener: (conversation: string) => void): () => void {
    this.#lost.add(listener);
    return () => this.#lost.delete(listener);
  }

  onTaken(listener: (conversation: string) => void): () => void {
    this.#taken.add(listener);
    return () => this.#taken.delete(listener);
  }

  /** A hold that could not be renewed in time is given up here, before the TTL lets another replica adopt it. */
  expire(): void {
    const now = this.wall() + this.#skew;
    for (const [ctx, { epoch, until }] of this.#held) if (until <= now) this.#lose(ctx, epoch);
  }

  #lose(ctx: string, epoch: number | null): void {
    if (!this.#held.delete(ctx)) return;
    this.#gone.delete(ctx);
    this.#gone.set(ctx, epoch);
    // Bounded: the oldest losses go first (a write that late was dropped by its fold long before).
    if (this.#gone.size > GONE_MAX) this.#gone.delete(this.#gone.keys().next().value as string);
    this.log.info('lease.lost', { ctx, epoch, replica: this.#holder });
    for (const listener of this.#lost) listener(ctx);
  }

  /** Conversations held now, with their epochs. */
  held(): ReadonlyMap<string, { epoch: number; until: number }> {
    return this.#held;
  }

  /**
   * One lease cycle and the inbox claim, inside the caller's transaction: returns the pending events of every
   * conversation held, in replay order (ts, then id: the original order and ids).
   */
  async claim(q: Query, owner: string, leaseMs: number, now: number): Promise<InboxEvent[]> {
    this.#holder = `${owner}@${this.replica}`;
    this.#skew = now - this.wall();
    this.#leaseMs = leaseMs;
    const holder = this.#holder;
    const until = now + leaseMs;
    // Only holds this claim could have seen: an accept may take a lease while the claim runs.
    const before = new Set(this.#held.keys());
    // Renewed: the holds still live here; one past its time was given up (its work stops) and is taken anew.
    const live = [...before].filter((ctx) => this.holds(ctx));
    const renewed = (await q(SQL.renew, [holder, until, live])).rows as Held[];
    await q(SQL.release, [holder, until]);
    const pending = (await q(SQL.pending)).rows.map((r) => String(r.conversation));
    const inserted = (await q(SQL.insert, [holder, until, pending])).rows as Held[];
    const taken = [...inserted, ...((await q(SQL.acquire, [holder, until, pending, now])).rows as Held[])];
    const rows = (await q(SQL.claimHeld, [holder, until])).rows as InboxRow[];
    const next = (await q(SQL.nextExpiry, [holder, now])).rows[0]?.until;
    this.#nextExpiry = next === null || next === undefined ? null : Number(next);
    // The hold ends a fifth of the lease early here: writes stop before another replica may adopt.
    this.#settle(renewed, taken, until - Math.floor(leaseMs / 5), before);
    return rows.map((row) => toInboxEvent(row)).sort(compareInbox);
  }

  async heartbeat(): Promise<void> {
    if (this.direct === undefined || this.#leaseMs === 0) return;
    // Whatever else this replica holds for the lease's length (its workflow runs) is renewed on the same beat, on
    // a statement of its own: a failure there does not keep the conversations from being renewed.
    const others = this.alsoBeat?.(this.direct);
    try {
      await this.#beatConversations(this.direct);
    } finally {
      await others;
    }
  }

  async #beatConversations(direct: Query): Promise<void> {
    const now = this.wall() + this.#skew;
    const live = [...this.#held].filter(([ctx]) => this.holds(ctx));
    if (live.length === 0) return;
    // The hold is measured from before the statement, as in a claim: it ends a fifth of the lease before the row.
    const until = now + this.#leaseMs;
    const params = [this.#holder, until, live.map(([ctx]) => ctx), live.map(([, h]) => h.epoch)];
    const rows = (await direct(SQL.heartbeat, params)).rows as Held[];
    const hold = until - Math.floor(this.#leaseMs / 5);
    for (const { conversation_id: ctx, epoch } of rows) {
      const mine = this.#held.get(ctx);
      if (mine !== undefined && mine.epoch === epoch && mine.until < hold) mine.until = hold;
    }
  }

  async heldElsewhere(conversation: string): Promise<boolean> {
    if (this.direct === undefined) return false;
    const row = (await this.direct(SQL.holderOf, [conversation])).rows[0] as {
      holder: string | null;
      lease_until: number;
    };
    const now = this.wall() + this.#skew;
    return row !== undefined && row.holder !== null && row.holder !== this.#holder && Number(row.lease_until) > now;
  }

  nextForeignExpiry(): number | null {
    return this.#nextExpiry;
  }

  /**
   * Inside an accept's transaction: takes the conversation's lease when nobody holds it live, so the replica that
   * accepted a message runs it (before its first claim, this replica takes nothing: the claim will). True when
   * this replica holds it now; otherwise another replica runs it and is told (NOTIFY).
   */
  async takeOnAccept(q: Query, conversation: string): Promise<boolean> {
    if (this.#leaseMs === 0) return false;
    const now = this.wall() + this.#skew;
    const until = now + this.#leaseMs;
    let taken = (await q(SQL.takeNew, [conversation, this.#holder, until])).rows as Held[];
    if (taken.length === 0) taken = (await q(SQL.takeFree, [conversation, this.#holder, until, now])).rows as Held[];
    this.#settle([], taken, until - Math.floor(this.#leaseMs / 5), null);
    return this.#held.has(conversation);
  }

  /** Inside a fold's transaction, after the event is done: gives the lease back when nothing else is pending. */
  async releaseIdle(q: Query, conversation: string): Promise<void> {
    const mine = this.#held.get(conversation);
    if (mine === undefined) return;
    const released = await q(SQL.releaseIdle, [conversation, this.#holder, mine.epoch]);
    if (released.rowCount === 1) this.#held.delete(conversation);
  }

  /** `seen`: a claim's holds at its start (those it did not renew or take are lost); null for an accept's take. */
  #settle(renewed: readonly Held[], taken: readonly Held[], until: number, seen: ReadonlySet<string> | null): void {
    const still = new Set<string>();
    for (const { conversation_id: ctx, epoch } of renewed) {
      still.add(ctx);
      const mine = this.#held.get(ctx);
      if (mine !== undefined && mine.epoch === epoch) mine.until = until;
      else this.#held.set(ctx, { epoch, until });
      this.#gone.delete(ctx);
    }
    for (const { conversation_id: ctx, epoch } of taken) {
      still.add(ctx);
      // An accept's take settling after a later claim's: the newer epoch stays.
      if ((this.#held.get(ctx)?.epoch ?? 0) > epoch) continue;
      this.#held.set(ctx, { epoch, until });
      this.#gone.delete(ctx);
      if (epoch > 1) this.counts.adoptions += 1;
      this.log.info(epoch > 1 ? 'lease.adopted' : 'lease.acquired', { ctx, epoch, replica: this.#holder });
      // Taken by the claim: a copy kept here may predate other holders' writes. (An accept's take needs no such
      // word: its intake has just read the conversation.)
      if (seen !== null) for (const listener of this.#taken) listener(ctx);
    }
    for (const [ctx, { epoch }] of this.#held) if (seen?.has(ctx) && !still.has(ctx)) this.#lose(ctx, epoch);
  }

  /**
   * The fence, inside a write's transaction: refuses (store_fenced) a write for a conversation whose lease another
   * replica holds live, or whose epoch moved past the one this replica holds, or whose hold ran past its time
   * (renewal failed: the replica stops writing before the TTL lets another take it), or that it gave up.
   * `foreignOk`: a write any replica may make (a task answered or renamed at the replica a client reached) is
   * refused only to a replica that lost the conversation, not for another's live lease.
   */
  async check(q: Query, conversations: readonly string[], foreignOk = false): Promise<void> {
    const now = this.wall() + this.#skew;
    const rows = (await q(SQL.fence, [conversations])).rows as Array<{
      conversation_id: string;
      holder: string | null;
      epoch: number;
      lease_until: number;
    }>;
    for (const row of rows) {
      const mine = this.#held.get(row.conversation_id);
      const foreign = !foreignOk && row.holder !== null && row.holder !== this.#holder && row.lease_until > now;
      // Not held here: a row still naming this replica (given up, expired unrenewed), or one it lost, even when
      // the lease is free or expired now (the next holder released it, or died).
      const lost = row.holder === this.#holder || this.#gone.has(row.conversation_id);
      const stale = mine === undefined ? lost : mine.epoch !== row.epoch || mine.until <= now;
      if (foreign || stale) this.#refuse(row.conversation_id, mine?.epoch ?? null, row.epoch);
    }
  }

  #refuse(ctx: string, held: number | null, stored: number): never {
    this.counts.fenced += 1;
    // The first refusal is where this replica learns it lost the conversation.
    this.#lose(ctx, held);
    this.log.warn('store.fenced', { ctx, epoch: held, current_epoch: stored, replica: this.#holder });
    throw new DaemonError(
      'store_fenced',
      `conversation ${ctx}: write refused: its lease is at epoch ${stored}, ${this.#holder} holds ${held ?? 'none'}`,
    );
  }
}
