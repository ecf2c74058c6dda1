// Turn jobs waiting for the dispatch gate, in inbox order, and which inbox events are queued or running so an
// event is never queued twice.
import type { InboxEvent } from '../domain/inbox.js';
import type { TurnJob } from '../domain/job.js';

export class TurnQueue {
  readonly jobs: TurnJob[] = [];
  /** Inbox ids queued or running (until their fold commits). */
  private readonly known = new Map<string, InboxEvent>();

  get length(): number {
    return this.jobs.length;
  }

  /** True while the event is queued or its turn has not folded back yet. */
  has(eventId: string): boolean {
    return this.known.has(eventId);
  }

  /** Queues the event's turn at the back; false when it is already queued or running. */
  enqueue(event: InboxEvent): boolean {
    if (this.known.has(event.id)) return false;
    this.known.set(event.id, event);
    const { context_id: ctx, text, msg_depth: depth = 0 } = event.payload;
    this.jobs.push({ event, ctx, principal: event.principal, text, depth });
    return true;
  }

  /** Takes the jobs at `indices` (ascending) out of the queue, in queue order. */
  take(indices: readonly number[]): TurnJob[] {
    const taken = indices.map((i) => this.jobs[i] as TurnJob);
    for (const i of [...indices].reverse()) this.jobs.splice(i, 1);
    return taken;
  }

  /** Takes the queued job answering `eventId`, if it has not started. */
  takeEvent(eventId: string): TurnJob | undefined {
    const at = this.jobs.findIndex((j) => j.event.id === eventId);
    return at >= 0 ? this.take([at])[0] : undefined;
  }

  /** Puts a taken job back in its place: ahead of every job accepted after it (inbox ids sort by time). */
  reinsert(job: TurnJob): void {
    const at = this.jobs.findIndex((j) => j.event.id > job.event.id);
    this.jobs.splice(at < 0 ? this.jobs.length : at, 0, job);
  }

  /** The event's fold committed: it leaves the books (returned, when it was known). */
  forget(eventId: string): InboxEvent | undefined {
    const event = this.known.get(eventId);
    this.known.delete(eventId);
    return event;
  }
}
