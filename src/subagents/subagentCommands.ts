// subagent.status, subagent.kill, subagent.send and subagent.list as A2A commands (issue 15 item 7): the same
// desk, the same texts as the tools. A caller reaches only the subagents its own turns started ("no such
// subagent" otherwise, as the tools say); the operator reaches every one, acting as the principal that started it.
import { isTerminal, type SubagentRecord } from '../domain/subagent.js';
import type { ToolCaller, ToolOutcome } from '../tools/toolOutcome.js';
import { listEntry } from './results.js';
import type { SubagentDesk } from './subagentDesk.js';

export const SUBAGENT_COMMANDS = ['subagent.status', 'subagent.kill', 'subagent.send', 'subagent.list'] as const;

export interface CommandPrincipal {
  id: string;
  role: string;
}

/** A command's answer, or the tool's refusal text. */
export type SubagentCommandResult = { ok: true; result: unknown } | { ok: false; error: string };

/** Runs one subagent command for `principal`; `args.handle` names the subagent. */
export function subagentCommand(
  desk: SubagentDesk,
  principal: CommandPrincipal,
  op: string,
  args: Record<string, unknown>,
): SubagentCommandResult {
  // The caller's own subagents; the operator's list holds every principal's.
  if (op === 'subagent.list') {
    const seen = desk.seenBy(principal.role === 'operator' ? undefined : principal.id);
    return { ok: true, result: { subagents: seen.map(listEntry) } };
  }
  const handle = typeof args.handle === 'string' ? args.handle : '';
  if (handle === '') return { ok: false, error: `command "${op}" needs a handle` };
  const owner =
    principal.role === 'operator'
      ? desk.seenBy().find((r) => r.handle === handle)?.requested_by.principal
      : principal.id;
  // Not a turn: the conversation and turn name the command, for the desk's log lines only.
  const caller: ToolCaller = {
    ...{ conversation: 'agentd', principal: owner ?? principal.id, turnId: `a2a:${op}`, depth: 0 },
    kind: 'conversation',
  };
  const host = desk.forTurn(() => {});
  let outcome: ToolOutcome;
  if (op === 'subagent.status') outcome = host.status(caller, handle);
  else if (op === 'subagent.kill') {
    const reason = typeof args.reason === 'string' && args.reason !== '' ? args.reason : 'killed by request';
    outcome = host.kill(caller, handle, reason);
  } else {
    if (typeof args.message !== 'string' || args.message === '') {
      return { ok: false, error: 'command "subagent.send" needs a non-empty message' };
    }
    outcome = host.send(caller, handle, args.message);
  }
  // status, kill and send answer at once (no defer or park: those are run and await).
  if (outcome.kind !== 'ready') return { ok: false, error: `command "${op}" did not answer at once` };
  return outcome.is_error ? { ok: false, error: String(outcome.result) } : { ok: true, result: outcome.result };
}

/** The live subagents as a status shows them: by handle, with mode, status and depth. */
export function liveSubagents(records: readonly SubagentRecord[]): Array<Record<string, unknown>> {
  return records
    .filter((r) => !isTerminal(r.status))
    .map((r) => ({ handle: r.handle, mode: r.mode, status: r.status, depth: r.requested_by.depth }));
}
