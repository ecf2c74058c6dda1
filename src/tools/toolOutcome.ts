// The values internal tools exchange with the supervisor: the caller, the host they may touch, the outcome.
// Types and two constructors only; shared by internalTools.ts (the runner) and internalHandlers.ts (the bodies).
import type { Conversation, Store } from '../store/store.js';

/** Who called: the conversation plan.* addresses, the acting principal, the turn. */
export interface ToolCaller {
  conversation: string;
  principal: string | null;
  turnId: string;
}

/** What internal tools may touch; the supervisor implements it over its state and store. */
export interface InternalToolHost {
  now(): number;
  memory: Pick<Store, 'memoryGet' | 'memorySet' | 'memoryList' | 'memoryDelete'>;
  /** The caller's conversation (for plan.*); its `plan` is replaced in place. */
  conversation(id: string): Conversation;
  /** The conversation changed (its plan); the supervisor checkpoints it. */
  markDirty(id: string): void;
  planMaxItems: number;
  /** For the `plan.updated {ctx, op, progress}` event. */
  onPlanUpdated?(ctx: string, op: string, progress: string): void;
  /** For the `tool.result.schema` event: a ready success did not match its output schema. */
  onResultSchemaMismatch?(tool: string, explain: string): void;
}

export interface ToolResult {
  result: unknown;
  is_error: boolean;
}

export type ToolOutcome =
  | ({ kind: 'ready' } & ToolResult)
  | { kind: 'park'; wakeAt: number; complete: (now: number) => ToolResult };

/** A ready error result carrying `message` as its content. */
export function toolError(message: string): ToolOutcome {
  return { kind: 'ready', result: message, is_error: true };
}

/** A ready success carrying `result`. */
export function toolOk(result: unknown): ToolOutcome {
  return { kind: 'ready', result, is_error: false };
}
