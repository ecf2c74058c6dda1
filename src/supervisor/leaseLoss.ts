// What a replica does once it lost a conversation's lease (issue 19 item 2; interfaces reference §4.4): the
// conversation's jobs stop here (a running worker's process group is killed, a waiting job never starts), their
// waiters follow the store for the new holder's outcome, and the book forgets its copy, so nothing of it is written
// again. A fold on its way is left to end: one the fence refuses comes back here with its event id.
import type { EffectContext } from './jobs.js';

/** Stops this replica's work on `ctx`; `fencedFold`: the event whose fold the fence refused. */
export function loseConversation(c: EffectContext, ctx: string, fencedFold?: string): void {
  const inbox = c.store.inbox;
  if (fencedFold !== undefined) {
    c.outcomes.follow(fencedFold, inbox);
    c.jobs.drop(fencedFold);
  }
  let stopped = 0;
  for (const job of [...c.jobs.jobs.values()]) {
    if (job.ctx !== ctx || job.state === 'done' || job.state === 'abandoned' || job.state === 'folding') continue;
    c.outcomes.follow(job.eventId, inbox);
    if (c.jobs.apply(job.eventId, { type: 'drain_abandon' }, { handedOver: true })) stopped++;
  }
  // The copy goes at once, with the fold marks of its folds: a fold still on its way either commits what it
  // prepared (the fence decides) or, not prepared yet, finds its copy gone and is dropped (FoldBack), so no later
  // write builds on a copy that may predate another holder's.
  c.conversations.forget(ctx, true);
  if (stopped === 0 && fencedFold === undefined) return;
  c.log.info('lease.work_stopped', { ctx, jobs: stopped, ...(fencedFold ? { inbox_event: fencedFold } : {}) });
}

/**
 * Replicas: true while this replica holds `ctx`'s lease. Once it does not, its work there stops at once: a turn
 * admitted after the store's round-trip must not start on a conversation the notice of loss has not reached yet.
 */
export function keepsLease(c: EffectContext, ctx: string): boolean {
  if (c.store.leases?.holds(ctx) ?? true) return true;
  loseConversation(c, ctx);
  return false;
}

/** Replicas: a job whose conversation was given up (forgotten) since its message came is prepped once read again. */
export class Rereads {
  readonly #asked = new Set<string>();

  /**
   * True when the job may be prepped. Not yet: its conversation is being read again (the reactor wakes once it is;
   * once per job), or it was read and is still not here though it exists (forgotten again meanwhile): then the job
   * stops, and the next claim queues its event again on the stored transcript.
   */
  ready(c: EffectContext, eventId: string, ctx: string): boolean {
    if (c.store.leases === undefined || c.conversations.isResident(ctx)) return true;
    if (this.#asked.has(eventId)) {
      if (!c.conversations.heads.has(ctx)) return true;
      c.jobs.apply(eventId, { type: 'drain_abandon' }, { handedOver: true });
      return false;
    }
    this.#asked.add(eventId);
    void c.conversations.fetch(ctx).then(c.wake, c.wake);
    return false;
  }

  /** Forgets the jobs `live` no longer answers for. */
  keep(live: (eventId: string) => boolean): void {
    for (const id of this.#asked) if (!live(id)) this.#asked.delete(id);
  }
}
