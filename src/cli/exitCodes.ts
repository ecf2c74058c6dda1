// How the instance's exit code follows from a job's outcome, a `finish` status or an escaped error. The table itself
// is protocol/exitTable.ts (the worker uses it too); pinned by test/unit/cli/exitCodes.test.ts.
import type { InboxOutcome } from '../domain/inbox.js';
import { DaemonError } from '../errors.js';
import { EXIT, type ExitCode } from '../protocol/exitTable.js';
import {
  errorKindOf,
  exitCodeForTurn,
  type FinishStatus,
  type TurnErrorKind,
  type TurnStatus,
} from '../protocol/status.js';

export { EXIT, type ExitCode } from '../protocol/exitTable.js';

/**
 * Exit code for a job's final turn status; a `failed` turn's code says where its error came from: its error kind,
 * or (as embedders called it before kinds existed) the error text itself, read by `errorKindOf`.
 */
export function exitCodeForStatus(status: TurnStatus, kindOrError?: TurnErrorKind | string): ExitCode {
  return exitCodeForTurn(status, errorKindOf({ error_kind: kindOrError, error: kindOrError }));
}

/** Exit code for a job's outcome: its `finish` call's status when it completed with one, else its turn status. */
export function exitCodeForOutcome(outcome: InboxOutcome): ExitCode {
  if (outcome.finish_status !== undefined && outcome.status === 'completed') {
    return exitCodeForFinish(outcome.finish_status);
  }
  return exitCodeForTurn(outcome.status, errorKindOf(outcome));
}

/** Exit code for a `finish` call's status in a job-shaped run (reference §14.2 step 7). */
export function exitCodeForFinish(status: FinishStatus | undefined): ExitCode {
  if (status === undefined || status === 'completed') return EXIT.ok;
  if (status === 'refused') return EXIT.refused;
  return EXIT.generic;
}

/** Exit code for an error that escaped to the CLI. */
export function exitCodeForError(err: unknown): ExitCode {
  if (!(err instanceof DaemonError)) return EXIT.generic;
  switch (err.code) {
    case 'config_invalid':
    case 'usage_invalid':
    case 'store_locked':
    case 'store_corrupt':
    case 'store_unreachable':
      return EXIT.config;
    case 'intel_unavailable':
    case 'intel_fatal':
      return EXIT.intel;
    case 'mcp_unreachable':
      return EXIT.mcp;
    case 'budget_exhausted':
      return EXIT.budget;
    default:
      return EXIT.generic;
  }
}
