// Where a subagent's results go besides its waiters (reference §1.8, §1.9 steps 4–5): each warm run's note, and at
// its end the plan items bound to it and the `subagent_result` note when `agent.wake_on` asks. Decides nothing
// about the record; the conversations are written by the producer's port and the plan bindings.
import type { Config } from '../config/types.js';
import type { SubagentRecord } from '../domain/subagent.js';
import type { WorkPorts } from '../tools/toolOutcome.js';
import { resultNote, turnNote } from './results.js';

export interface ReturnDeps {
  config: Readonly<Config>;
  /** Where the `subagents` producer plugs in the return of results (`subagent_result`). */
  ports: WorkPorts | undefined;
  /** Settles the plan items bound to the ended subagent (planBindings.ts); absent: none are. */
  settlePlans?(record: SubagentRecord): void;
}

function returnNote(deps: ReturnDeps, record: SubagentRecord, text: string): void {
  const { ctx, principal } = record.requested_by;
  deps.ports?.port('subagent_result')?.({ ctx, principal, handle: record.handle, text });
}

/** A warm run's note: every run is noted, whatever agent.wake_on says (reference §1.8). */
export function returnTurn(deps: ReturnDeps, record: SubagentRecord): void {
  returnNote(deps, record, turnNote(record.handle, record.result));
}

/** The end: bound plan items settle; the note goes when `note` and agent.wake_on ask for it. */
export function returnEnd(deps: ReturnDeps, record: SubagentRecord, note: boolean): void {
  deps.settlePlans?.(record);
  // A sync step's child answers its step, not a conversation (the run's own end is noted).
  const stepChild = record.mode === 'sync' && record.requested_by.run !== undefined;
  if (note && !stepChild && deps.config.agent.wake_on.includes('subagent_result')) {
    returnNote(deps, record, resultNote(record));
  }
}
