// The eight turn statuses, shared end to end, and the worker exit code each one maps to (reference §14.1).
// Pure data: no I/O.

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

/** True when `s` is one of the eight statuses. */
export function isTurnStatus(s: unknown): s is TurnStatus {
  return typeof s === 'string' && (TURN_STATUSES as readonly string[]).includes(s);
}

/** The worker process exit code for a status; `failed` is 4 when the error came from the model endpoint. */
export function workerExitCode(status: TurnStatus, error?: string): number {
  switch (status) {
    case 'completed':
      return 0;
    case 'failed':
      return error?.startsWith('intel:') ? 4 : 1;
    case 'cancelled':
      return 1;
    case 'refused':
      return 5;
    case 'exhausted_steps':
    case 'exhausted_tokens':
      return 7;
    case 'deadline':
      return 124;
    case 'loop_detected':
      return 3;
  }
}
