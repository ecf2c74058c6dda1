// The V8 flags agentd starts its own node processes with (workers, a daemon `agentd tui --start` launches): a small
// young generation. V8 grows each semi-space up to 16 MB under load and keeps the pages once touched, which an
// idle daemon or spare worker then holds for nothing; with 1 MB a scavenge runs more often and costs less. A
// process the operator starts (`agentd` itself) takes the same flag through NODE_OPTIONS (docs/guide/operations.md).
// Pure: reads the environment it is given.

/** The young generation's cap, in MB per semi-space. */
export const LEAN_SEMI_SPACE_MB = 1;

/**
 * Node flags for a process agentd spawns: the lean young generation, unless the operator's NODE_OPTIONS sizes it
 * (a flag on the command line would override theirs).
 */
export function leanHeapArgs(env: Readonly<Record<string, string | undefined>>): string[] {
  if (/--(max-)?semi-space-size/.test(env.NODE_OPTIONS ?? '')) return [];
  return [`--max-semi-space-size=${LEAN_SEMI_SPACE_MB}`];
}
