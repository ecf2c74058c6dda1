// What a job runs on: one accepted inbox event on its way to a turn. Plain data only; the job's state is the job
// table's (supervisor/jobTable.ts).
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
