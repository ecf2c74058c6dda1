// What a job runs on: one accepted inbox event on its way to a turn, or what a think child is asked. Plain data
// (but a think job's spawn callback); the job's state is the job table's (supervisor/jobTable.ts).
import type { Msg } from '../protocol/messages.js';
import type { InboxEvent } from './inbox.js';

/** The input of a job's turn. `event` is the inbox event it answers. */
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

/** What a think child is asked (reference §13 "Think tool child", §16.3). */
export interface ThinkJob {
  purpose: 'think' | 'decide' | 'preflight' | 'compaction';
  /** The conversation it is bound to (busy while it runs). */
  ctx: string;
  /** The node of the turn that asked, so the child dies with it; null for preflight (no turn yet). */
  parentNode: number | null;
  system: string;
  messages: Msg[];
  schema?: Record<string, unknown>;
  turnId: string;
  /** The inbox event a preflight works for (its trace is that message's). */
  eventId?: string;
  /** Called once the child's worker has its spawn frame (never when it could not start). */
  onSpawn?: (workerPid: number) => void;
}
