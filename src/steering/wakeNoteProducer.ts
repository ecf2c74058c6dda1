// Wake notes as a producer (seed 000, reference §3.2): when a run that `message.send` started folds, its sender
// gets a `[note]` or, with `on_workflow_finished: think`, a turn at once (a `wake_note` event acting for the
// sender's owner, one hop deeper). What to do is pure policy (wakeNotes.ts); notes are the steering desk's.
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import type { CommittedTurn } from './turnFeed.js';
import { runFinishedWake } from './wakeNotes.js';

export class WakeNotes implements Producer {
  readonly name = 'wake_notes';
  private unsubscribe: (() => void) | null = null;

  start(ctx: ProducerContext): void {
    this.unsubscribe = ctx.turns.onCommitted((turn) => wakeSender(ctx, turn));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

function wakeSender(ctx: ProducerContext, turn: CommittedTurn): void {
  const { event, outcome } = turn;
  const steering = ctx.supervisor.steering;
  // A side task reports to its parent instead (the steering desk's note).
  if (event.kind !== 'agent_message' || steering.sideOf(event.payload.context_id) !== null) return;
  const from = event.payload.from;
  const action = runFinishedWake({ from, conversation: event.payload.context_id, outcome }, ctx.config.agent);
  const owner = steering.ownerOf(from);
  if (action.kind === 'note') steering.note(action.ctx, action.text, owner);
  if (action.kind !== 'think') return;
  // The wake turn acts for the sender's owner, one hop deeper: a chain of deliveries stays bounded.
  const depth = (event.payload.msg_depth ?? 0) + 1;
  const max = ctx.config.limits.max_message_depth;
  if (depth > max) {
    steering.note(action.ctx, `${action.text} (no turn: hop depth ${depth} exceeds limits.max_message_depth)`, owner);
    return;
  }
  const input = {
    kind: 'wake_note',
    about: event.payload.context_id,
    context_id: action.ctx,
    text: action.text,
    principal: owner,
    msg_depth: depth,
  } as const;
  ctx.accept(input).catch((err: unknown) => {
    ctx.log.error('inbox.accept.fail', { ctx: action.ctx, err: describeError(err) });
  });
}

/** Registered in runtime/producerList.ts: always on (`agent.wake_on` / `on_workflow_finished` decide what wakes). */
export function wakeNotes(): WakeNotes {
  return new WakeNotes();
}
