// A conversation (reference §2.3): its transcript, summary, plan and controls. Plain data only.
import type { Msg } from '../protocol/messages.js';
import type { Goal } from './goal.js';
import type { Plan } from './plan.js';

export interface Summary {
  goals: string[];
  decisions: string[];
  open: string[];
  facts: string[];
  narrative?: string;
  covers_messages: number;
  updated: number;
}

/** How a caller steers a conversation: its mode, its goal, and whether it is a side task of another. */
export interface ConversationControls {
  /** `plan`: only read-only tools run and the turn ends with a proposal. Default execute. */
  mode: 'plan' | 'execute';
  goal: Goal | null;
  /** The parent a side task reports back to; null once promoted (or for a normal conversation). */
  side_of: string | null;
  /** The newest plan-mode proposal, kept apart from the plan checklist. */
  proposal: { text: string; turn: string; ts: number } | null;
  /** Notes that arrived while a turn of the conversation ran: appended after its fold. */
  pending_notes?: string[];
}

/** A conversation (reference §2.3). `version` changes only on compaction. */
export interface Conversation {
  id: string;
  kind: 'root' | 'conversation';
  version: number;
  summary: Summary | null;
  messages: Msg[];
  plan: Plan | null;
  principal: string | null;
  turns: number;
  created: number;
  updated: number;
  /** Absent until a caller steers the conversation (plan mode, a goal, a side task). */
  controls?: ConversationControls;
  /** Names of the skills loaded on this conversation (reference §8.4); absent = none. */
  skills?: string[];
}
