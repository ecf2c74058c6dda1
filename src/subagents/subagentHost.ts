// What subagent.* reach in the supervisor: the desk's operations seen from one caller, and the desk bound to the
// turn (or subagent) that calls, so waits and sync children end with it. Types only.
import type { SubagentRecord } from '../domain/subagent.js';
import type { Args } from '../tools/handlers/handler.js';
import type { ToolCaller, ToolOutcome } from '../tools/toolOutcome.js';

export interface SubagentHost {
  run(caller: ToolCaller, args: Args): ToolOutcome;
  /** `timeoutMs` null: wait until the subagent ends (bounded by the caller's own turn). */
  await(caller: ToolCaller, handle: string, timeoutMs: number | null): ToolOutcome;
  send(caller: ToolCaller, handle: string, message: string): ToolOutcome;
  status(caller: ToolCaller, handle: string): ToolOutcome;
  list(caller: ToolCaller): ToolOutcome;
  kill(caller: ToolCaller, handle: string, reason: string): ToolOutcome;
  /** A page of a cut result's whole text from `offset` (bytes); `run`: the result the caller expects, if any. */
  result(caller: ToolCaller, handle: string, offset: number, run: number | null): ToolOutcome;
  /** The caller's subagent `handle` as it stands now; undefined when it has none by that handle. */
  find(caller: ToolCaller, handle: string): Readonly<SubagentRecord> | undefined;
}

/** Registers a cleanup run once the calling turn's worker is gone. */
export type OnCallerEnd = (cleanup: () => void) => void;

export interface SubagentDeskPort {
  /** The operations as one turn sees them: a sync child and every wait end with that turn. */
  forTurn(onEnd: OnCallerEnd): SubagentHost;
  /** Why the subagent's next model call is refused (the subtree token ceiling), or null. */
  ceiling(record: SubagentRecord): string | null;
  /** Whether subagent `handle` has not ended (running, or respawned to run again). */
  alive(handle: string): boolean;
}
