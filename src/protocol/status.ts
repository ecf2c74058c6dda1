// The eight turn statuses, shared end to end, the kinds of turn error, and the exit code each status and kind maps
// to (reference §14.1). Pure data: no I/O.
import { EXIT, type ExitCode } from './exitTable.js';

/** How a turn ends: exactly one of these, with the seed's exact strings. */
export const TURN_STATUSES = [
  'completed',
  'failed',
  'cancelled',
  'refused',
  'exhausted_steps',
  'exhausted_tokens',
  'deadline',
  'loop_detected',
] as const;

export type TurnStatus = (typeof TURN_STATUSES)[number];

/**
 * What a `finish` call says of the task (reference §13, the finish tool): it drives the instance's exit code, never
 * the turn's status (a turn that called finish is `completed`).
 */
export const FINISH_STATUSES = ['completed', 'failed', 'refused', 'cancelled'] as const;

export type FinishStatus = (typeof FINISH_STATUSES)[number];

/**
 * Where a turn's error came from, set where the error is made and carried with its text: `intel` the model
 * endpoint, `mcp` a required MCP server, `budget` the budget, `deadline` / `cancelled` / `refused` the supervisor's
 * stop, `loop` loop detection, `answer` an answer no check accepted, `worker` a worker that died or went silent,
 * `stale` a queued goal continuation dropped before it ran, `internal` anything else (a turn that could not start,
 * a worker exception).
 */
export const TURN_ERROR_KINDS = [
  'intel',
  'mcp',
  'budget',
  'deadline',
  'cancelled',
  'refused',
  'loop',
  'answer',
  'worker',
  'stale',
  'internal',
] as const;

export type TurnErrorKind = (typeof TURN_ERROR_KINDS)[number];

function isTurnErrorKind(k: unknown): k is TurnErrorKind {
  return typeof k === 'string' && (TURN_ERROR_KINDS as readonly string[]).includes(k);
}

/**
 * The error kind of a turn's result or a stored outcome. Records written before turn errors carried a kind have
 * only the text: they are read by its prefix (`intel: …`, `mcp '…'`), here and nowhere else.
 */
export function errorKindOf(outcome: {
  error?: string | undefined;
  error_kind?: string | undefined;
}): TurnErrorKind | undefined {
  if (isTurnErrorKind(outcome.error_kind)) return outcome.error_kind;
  if (outcome.error?.startsWith('intel:')) return 'intel';
  if (outcome.error?.startsWith('mcp ')) return 'mcp';
  return undefined;
}

/** The exit code for a turn's status; a `failed` turn's code says where its error came from. */
export function exitCodeForTurn(status: TurnStatus, kind?: TurnErrorKind): ExitCode {
  switch (status) {
    case 'completed':
      return EXIT.ok;
    case 'failed':
      if (kind === 'intel') return EXIT.intel;
      if (kind === 'mcp') return EXIT.mcp;
      if (kind === 'budget') return EXIT.budget;
      return EXIT.generic;
    case 'cancelled':
      return EXIT.generic;
    case 'refused':
      return EXIT.refused;
    case 'exhausted_steps':
    case 'exhausted_tokens':
      return EXIT.budget;
    case 'deadline':
      return EXIT.deadline;
    case 'loop_detected':
      return EXIT.loopDetected;
  }
}
