// What one run (one accepted message and the turn that answers it) reports to whoever started it: the embedding
// API's `run().events`. Plain data: a discriminated union on `type`, every member carrying the run's id.
import type { Usage } from '../protocol/messages.js';
import type { TurnErrorKind, TurnStatus } from '../protocol/status.js';

/** How a run ended. */
export interface RunResult {
  status: TurnStatus;
  reply: string;
  /** Tokens the turn spent (model calls of the turn itself; think children are accounted apart). */
  usage: Usage;
  /** The turn that answered, e.g. `turn-12`; null when no turn started (refused, cancelled while queued). */
  turnId: string | null;
  error?: string;
  errorKind?: TurnErrorKind;
}

/** One run's events, in order: `accepted` first, `done` last; the others as the turn makes progress. */
export type RunEvent =
  | { type: 'accepted'; runId: string; conversation: string }
  /** A model call starts (`round` is the 1-based round it opens). */
  | { type: 'thinking'; runId: string; turnId: string; round: number }
  /** A model call answered: the turn's running token totals. */
  | { type: 'round'; runId: string; turnId: string; round: number; usage: Usage }
  /** Text the model wrote (an answer, or the text beside its tool calls). */
  | { type: 'text'; runId: string; turnId: string; round: number; text: string }
  | { type: 'tool_call'; runId: string; turnId: string; tool: string; index: number; of: number }
  /** A tool call's result, clipped to 2,000 characters. */
  | {
      type: 'tool_result';
      runId: string;
      turnId: string;
      callId: string;
      tool: string;
      arguments: unknown;
      result: string;
      isError: boolean;
      ms: number;
    }
  /**
   * The turn waits for a person: `ask_human`, or a tool policy's `ask` (`kind: 'approval'`, answered yes or no).
   * Answer with `agent.answer(runId, text)`; unanswered by `expiresAt` (ms since the epoch), the turn goes on
   * without an answer (an approval is declined).
   */
  | {
      type: 'question';
      runId: string;
      questionId: string;
      kind: 'ask_human' | 'approval';
      question: string;
      expiresAt: number;
      /** The JSON Schema ask_human gave for the answer. */
      schema?: Record<string, unknown>;
      /** The tool an approval is about. */
      tool?: string;
    }
  /** The conversation's plan checklist changed (`plan.*` tools): the operation and the progress line. */
  | { type: 'plan'; runId: string; conversation: string; op: string; progress: string }
  | { type: 'done'; runId: string; result: RunResult };

export type RunEventType = RunEvent['type'];
