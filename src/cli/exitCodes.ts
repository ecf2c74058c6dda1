// The one table of instance exit codes (DESIGN.md "Contracts") and the function mapping a status or error to it.
// Pinned by test/unit/cli/exitCodes.test.ts.
import { DaemonError } from '../errors.js';
import { type TurnStatus, workerExitCode } from '../protocol/status.js';

export const EXIT = {
  ok: 0,
  generic: 1,
  config: 2,
  loopDetected: 3,
  intel: 4,
  refused: 5,
  mcp: 6,
  budget: 7,
  deadline: 124,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Exit code for a job's final turn status: the worker's own code for that status (one table, protocol/status.ts),
 * except that a turn failed by an unreachable MCP server (`mcp '…'`) exits 6.
 */
export function exitCodeForStatus(status: TurnStatus, error?: string): number {
  if (status === 'failed' && error?.startsWith('mcp ')) return EXIT.mcp;
  return workerExitCode(status, error);
}

/** Exit code for a `finish` call's status in a job-shaped run (reference §14.2 step 7). */
export function exitCodeForFinish(status: string | undefined): ExitCode {
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
