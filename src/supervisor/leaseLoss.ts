// What a replica does once it lost a conversation's lease (issue 19 item 2; interfaces reference §4.4): the
// conversation's jobs stop here (a running worker's process group is killed, a waiting job never starts), their
// waiters follow the store for the new holder's outcome, and the book forgets its copy, so nothing of it is written
// again. A fold on its way is left to end: one the fence refuses comes back here with its event id.
import type { HandlerContext } from './jobs.js';

/** Stops this replica's work on `ctx`; `fencedFold`: the event whose fold the fence refused. */
export function loseConversation(c: HandlerContext, ctx: string, fencedFold?: string): void {
  const inbox = c.store.inbox;
  if (fencedFold !== undefined) {
    c.outcomes.follow(fencedFold, inbox);
    c.jobs.drop(fencedFold);
  }
  let folding = false;
  let stopped = 0;
  for (const job of [...c.jobs.jobs.values()]) {
    if (job.ctx !== ctx || job.state === 'done' || job.state === 'abandoned') continue;
    if (job.state === 'folding') {
      folding = true;
      continue;
    }
    c.outcomes.follow(job.eventId, inbox);
    if (c.jobs.apply(job.eventId, { type: 'drain_abandon' }, { handedOver: true })) stopped++;
  }
  // A fold still on its way commits the book's copy: the copy goes with that fold's end (or its refusal).
  if (!folding) c.conversations.forget(ctx);
  if (stopped === 0 && fencedFold === undefined) return;
  c.log.info('lease.work_stopped', { ctx, jobs: stopped, ...(fencedFold ? { inbox_event: fencedFold } : {}) });
}
