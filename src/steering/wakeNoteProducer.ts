// Wake notes as a producer (seed 000, reference §3.2): when a run that `message.send` started folds, its sender
// gets a `[note]` (the steering desk writes it) or, with `on_workflow_finished: think`, a turn at once: the desk
// publishes it as due and this accepts it as a `wake_note` event.
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';

export class WakeNotes implements Producer {
  readonly name = 'wake_notes';
  private unsubscribe: (() => void) | null = null;

  start(ctx: ProducerContext): void {
    this.unsubscribe = ctx.turns.onWakeDue((due) => {
      const { about, principal, msg_depth } = due;
      ctx
        .accept({ kind: 'wake_note', about, context_id: due.ctx, text: due.text, principal, msg_depth })
        .catch((err: unknown) => ctx.log.error('inbox.accept.fail', { ctx: due.ctx, err: describeError(err) }));
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

/** Registered in runtime/producerList.ts: always on (`agent.wake_on` / `on_workflow_finished` decide what wakes). */
export function wakeNotes(): WakeNotes {
  return new WakeNotes();
}
