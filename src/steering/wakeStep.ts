// What the steering desk does for a sender when a run its `message.send` started folds: a `[note]`, or a wake
// turn due for the wake-note producer to accept (acting for the sender's owner, one hop deeper, within
// limits.max_message_depth). The decision is pure policy (wakeNotes.ts); the desk writes the notes.
import type { Config } from '../config/types.js';
import type { CommittedTurn, WakeDue } from './turnFeed.js';
import { runFinishedWake } from './wakeNotes.js';

/** The desk's parts a wake step reads and writes. */
export interface WakeDesk {
  sideOf(ctx: string): string | null;
  ownerOf(ctx: string): string | null;
  note(ctx: string, text: string, owner: string | null): void;
}

/** Leaves the sender's note, or returns the wake turn that is due; null when no turn is due. */
export function wakeAfterFold(turn: CommittedTurn, config: Readonly<Config>, desk: WakeDesk): WakeDue | null {
  const { event, outcome } = turn;
  // A side task reports to its parent instead (the desk's side report).
  if (event.kind !== 'agent_message' || desk.sideOf(event.payload.context_id) !== null) return null;
  const from = event.payload.from;
  const action = runFinishedWake({ from, conversation: event.payload.context_id, outcome }, config.agent);
  const owner = desk.ownerOf(from);
  if (action.kind === 'note') desk.note(action.ctx, action.text, owner);
  if (action.kind !== 'think') return null;
  // The wake turn acts for the sender's owner, one hop deeper: a chain of deliveries stays bounded.
  const depth = (event.payload.msg_depth ?? 0) + 1;
  const max = config.limits.max_message_depth;
  if (depth > max) {
    desk.note(action.ctx, `${action.text} (no turn: hop depth ${depth} exceeds limits.max_message_depth)`, owner);
    return null;
  }
  return { about: event.payload.context_id, ctx: action.ctx, text: action.text, principal: owner, msg_depth: depth };
}
