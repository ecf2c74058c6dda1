// Who is waiting for which inbox event's outcome, and folds whose commit the store has not taken yet.
// A waiter hears an outcome only once it is durable (or when the event is abandoned and will replay).

import type { InboxOutcome, InboxRecord } from '../domain/inbox.js';
import type { TurnResult } from '../protocol/frames.js';
import type { InboxPort } from '../store/store.js';

/** What a waiter hears when a drain stopped its turn (or it never started): the message replays next start. */
export const ABANDONED: InboxOutcome = {
  status: 'cancelled',
  reply: '',
  error: 'the turn was stopped by a drain; the message stays pending and replays on the next start',
  error_kind: 'cancelled',
};

export class Outcomes {
  private readonly waiters = new Map<string, Array<(o: InboxOutcome) => void>>();
  /** Folds whose commit failed, by inbox id: retried every reactor step until the store takes them. */
  readonly uncommitted = new Map<string, { ctx: string; outcome: InboxOutcome; result?: TurnResult }>();

  /**
   * Resolves with the event's outcome once its turn has folded back (at once when the store has it). An unknown
   * event, or one a drain abandoned, resolves with a `failed` / `cancelled` outcome that says so.
   */
  of(
    eventId: string,
    at: { known: boolean; inbox: Pick<InboxPort, 'find'>; draining: boolean },
  ): Promise<InboxOutcome> {
    if (at.known) return this.wait(eventId);
    // Registered before the read, so a fold that commits meanwhile is not missed; dropped when the read answers.
    let hear: (o: InboxOutcome) => void = () => {};
    const waiting = new Promise<InboxOutcome>((resolve) => {
      hear = resolve;
      this.add(eventId, resolve);
    });
    return at.inbox.find(eventId).then((record) => {
      const answer = settledAnswer(eventId, record, at.draining);
      if (answer === null) return waiting;
      this.drop(eventId, hear);
      return answer;
    });
  }

  wait(eventId: string): Promise<InboxOutcome> {
    return new Promise((resolve) => this.add(eventId, resolve));
  }

  private add(eventId: string, waiter: (o: InboxOutcome) => void): void {
    const list = this.waiters.get(eventId) ?? [];
    list.push(waiter);
    this.waiters.set(eventId, list);
  }

  private drop(eventId: string, waiter: (o: InboxOutcome) => void): void {
    const list = (this.waiters.get(eventId) ?? []).filter((w) => w !== waiter);
    if (list.length === 0) this.waiters.delete(eventId);
    else this.waiters.set(eventId, list);
  }

  resolve(eventId: string, outcome: InboxOutcome): void {
    const waiters = this.waiters.get(eventId) ?? [];
    this.waiters.delete(eventId);
    for (const w of waiters) w(outcome);
  }
}

/** What a caller hears at once about an event the queue does not know, or null when it must wait for the fold. */
function settledAnswer(eventId: string, record: InboxRecord | null, draining: boolean): InboxOutcome | null {
  if (record === null) {
    return { status: 'failed', reply: '', error: `unknown inbox event ${eventId}`, error_kind: 'internal' };
  }
  if (record.status === 'done') return record.outcome ?? { status: 'completed', reply: '' };
  return draining ? ABANDONED : null;
}
