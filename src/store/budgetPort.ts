// The Store's budget port (reference §10.2): durable counters added to by increments, and, where replicas share the
// store, dispatch admission that reads and reserves in the shared window atomically (interfaces reference §4.4).
import type { BudgetCounter } from '../domain/budget.js';

/** How long a shared reservation lives unrenewed: a replica that died stops holding the fleet's window then. */
export const RESERVATION_TTL_MS = 30_000;

/** What a shared reservation still holds of its estimate in the fleet's windows; 0 = settled, it goes. */
export interface BudgetHold {
  id: string;
  tokens: number;
}

/** A dispatch admission against the windows every replica shares (replicas; interfaces reference §4.4). */
export interface SharedAdmission {
  /** The reservation's id (its holds are kept under it). */
  id: string;
  /** The scopes the turn answers to. */
  scopes: readonly string[];
  /**
   * Decides inside the store's lock on the scopes: `counters` are their stored counters, `held` what every
   * replica's live reservations hold (tokens) per scope, window and bucket. Returns the holds to store, one per
   * scope and window (each counts one request at once), or null when the turn is not admitted.
   */
  decide(counters: readonly BudgetCounter[], held: readonly BudgetCounter[]): BudgetCounter[] | null;
}

export interface BudgetPort {
  /** Every stored budget counter. */
  load(): Promise<BudgetCounter[]>;
  /**
   * Adds `deltas` to the stored counters, in one transaction: same bucket index → the amounts add up; a newer
   * bucket replaces the stored one; an older bucket is ignored. Never an absolute write. `holds` (shared stores)
   * set what reservations still hold, in the same transaction: spend and the reservation it replaces land at once.
   */
  add(deltas: BudgetCounter[], holds?: readonly BudgetHold[]): Promise<void>;
  /**
   * Shared stores (postgres): reads the shared window and reserves in it atomically (`decide`); resolves with
   * the counters read and whether it reserved. Absent: each process owns its counters (admission is local).
   */
  reserve?(req: SharedAdmission): Promise<{ counters: BudgetCounter[]; reserved: boolean }>;
  /** Shared stores: keeps the reservations `ids` alive (one that is not renewed stops counting). */
  renew?(ids: readonly string[]): Promise<void>;
}
