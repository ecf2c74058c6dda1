// Durable A2A tasks (reference §17.2). Plain data only.

/** A2A task states (reference §17.2); the last four are terminal and never change again. */
export type TaskState = 'submitted' | 'working' | 'input_required' | 'completed' | 'failed' | 'canceled' | 'rejected';

/** A durable A2A task, linked to the inbox event (and so the turn) that answers it. */
export interface TaskRecord {
  /** Unique across restarts (a ULID). */
  id: string;
  /** The caller's context id (the conversation it names, in the caller's own namespace). */
  context_id: string;
  /** The internal conversation the task's turns run in. */
  conversation: string;
  state: TaskState;
  principal: string;
  /** The inbox event whose turn answers it; null for deterministic replies (commands). */
  inbox_event: string | null;
  /** The status message text (the reply, an error, or the question asked). */
  message: string | null;
  /** The reply as the task's artifact text; null until completed. */
  result: string | null;
  /** An open question to a person (ask_human, a policy `ask`): answered by a SendMessage with this task's id. */
  question: {
    id: string;
    text: string;
    schema?: Record<string, unknown>;
    answer?: string;
    /** Why the previous answer was refused: set on a question asked again (a2a/answerCheck.ts `reasked`). */
    rejected?: string;
  } | null;
  history: Array<{ state: TaskState; ts: number }>;
  /**
   * The A2A messageIds this task already consumed after it started (answers, notes): a retry of one of them is
   * answered with the task as it is. Absent on tasks that consumed none.
   */
  message_ids?: string[];
  /**
   * The workflow run behind the task: the run an `a2a` start made for it (inbox_event null), or the run whose
   * `human` step asks on it (inbox_event the step key). CancelTask reaches the run through it. Absent otherwise.
   */
  run?: string;
  created: number;
  updated: number;
}

/**
 * Which tasks `listTasks` returns: a principal's (all when null), optionally in one context and one state, those
 * after `after` in the listing's order (a page's last task), at most `limit`.
 */
export interface TaskFilter {
  principal: string | null;
  context_id?: string;
  state?: TaskState;
  after?: TaskCursor;
  limit: number;
}

/**
 * A place in the task listing, which runs by id descending (ULIDs: newest created first). The id never changes,
 * so a task updated while a caller pages cannot move across the cursor and be skipped (issue 13).
 */
export interface TaskCursor {
  id: string;
}
