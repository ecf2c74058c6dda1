// The seam between the supervisor and A2A tasks: what the reactor asks of whoever owns tasks (the A2A backend)
// at fold-back, on progress, and when a turn needs a person. The supervisor itself knows nothing of A2A.
import type { InboxEvent, InboxOutcome } from '../domain/inbox.js';
import type { TaskRecord } from '../domain/task.js';
import type { ToolResult } from '../tools/internalTools.js';

export interface HumanAsk {
  /** The inbox event of the turn that asks (its task is the one that goes input_required). */
  eventId: string;
  question: string;
  schema?: Record<string, unknown>;
  timeoutAt: number;
}

/** The live feed's engine events (seed 003), each its own type. */
export type EngineEventType = 'body' | 'tool_card' | 'proposal' | 'checklist' | 'compaction' | 'memory';

export interface TaskHooks {
  /** The task an event's fold moves to its terminal state, to commit in the same transaction; null when none. */
  taskForFold(eventId: string, outcome: InboxOutcome): Promise<TaskRecord | null>;
  /** The task record an event starts with, committed in the accept's own transaction; null when none. */
  taskFor?(event: InboxEvent): TaskRecord | null;
  /** At restore, before the claimed events queue: rebuild the tasks a crash lost after their inbox write. */
  recover?(pending: readonly InboxEvent[]): Promise<void>;
  /** After the fold committed: tell watchers. */
  afterFold(task: TaskRecord): void;
  /** Coarse live activity of the turn answering `eventId` (published only when phase, tool or round changed). */
  onActivity(eventId: string, activity: Record<string, unknown>): void;
  /** A distinct engine event of that turn for the live feed: body, tool_card, proposal, checklist, … */
  onEngineEvent(eventId: string, type: EngineEventType, fields: Record<string, unknown>): void;
  /** True while a person can be asked (a listener is up). */
  readonly humanChannel: boolean;
  /** Puts the event's task in input_required with the question; resolves with the person's answer or a timeout. */
  askHuman(ask: HumanAsk): Promise<ToolResult>;
}
