// Who is waiting for which inbox event's outcome, and folds whose commit the store has not taken yet.
// A waiter hears an outcome only once it is durable (or when the event is abandoned and will replay).
import type { InboxOutcome } from '../store/store.js';

export class Outcomes {
  private readonly waiters = new Map<string, Array<(o: InboxOutcome) => void>>();
  /** Folds whose commit failed, by inbox id: retried every reactor step until the store takes them. */
  readonly uncommitted = new Map<string, { ctx: string; outcome: InboxOutcome }>();

  wait(eventId: string): Promise<InboxOutcome> {
    return new Promise((resolve) => {
      const list = this.waiters.get(eventId) ?? [];
      list.push(resolve);
      this.waiters.set(eventId, list);
    });
  }

  resolve(eventId: string, outcome: InboxOutcome): void {
    const waiters = this.waiters.get(eventId) ?? [];
    this.waiters.delete(eventId);
    for (const w of waiters) w(outcome);
  }
}
