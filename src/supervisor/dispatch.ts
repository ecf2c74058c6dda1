// The dispatch gate as pure policy (reference §4): which queued jobs may start now.
// No I/O: the reactor passes the queue and what is live, and starts what this returns.
import type { InboxEvent } from '../store/store.js';

/** A conversation turn waiting for a worker. `event` is the inbox event it answers. */
export interface TurnJob {
  event: InboxEvent;
  ctx: string;
  principal: string | null;
  text: string;
  /** Hop depth of the message (0 for a person's). */
  depth: number;
  /** What staging found (reference §6–§7); absent until the job has been staged. */
  prep?: TurnPrep;
}

/** A staged job's findings: the route preflight chose (null = roles.turn) and the knowledge block ('' = none). */
export interface TurnPrep {
  route: string | null;
  knowledge: string;
}

export interface GateState {
  /** Conversation turns running now (think children do not count). */
  liveTurns: number;
  /** Conversations with a live turn or think child bound to them. */
  busy: ReadonlySet<string>;
  paused: boolean;
  draining: boolean;
}

/**
 * Indices of the jobs to start now, front to back: at most `maxParallel` live turns, one writer per conversation.
 * A blocked job keeps its place; a later job of the same conversation never overtakes an earlier one.
 */
export function nextDispatchable(queue: readonly TurnJob[], gate: GateState, maxParallel: number): number[] {
  if (gate.paused || gate.draining) return [];
  const picked: number[] = [];
  const claimed = new Set(gate.busy);
  let live = gate.liveTurns;
  for (let i = 0; i < queue.length && live < maxParallel; i++) {
    const job = queue[i] as TurnJob;
    if (claimed.has(job.ctx)) continue;
    claimed.add(job.ctx);
    picked.push(i);
    live++;
  }
  return picked;
}

/**
 * Why a delivery on behalf of `principal` may not run in a conversation owned by `owner` (reference §3.3): the
 * operator and work acting for nobody reach any conversation; anyone else only their own.
 */
export function ownershipRefusal(owner: string | null, principal: string | null): string | null {
  if (principal === null || principal === 'operator' || owner === null || owner === principal) return null;
  return 'the conversation belongs to another principal';
}
