// The dispatch gate as pure policy (reference §4): which queued jobs may start now.
// No I/O: the reactor passes the queue and what is live, and starts what this returns.
import type { TurnJob } from '../domain/job.js';

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
