// The one table of exit codes (DESIGN.md "Contracts", reference §14.1): the instance's and the worker's alike.
// Pure data; only cli/ sets the instance's exit code, the worker its own process's. Pinned by a test.

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

/** What each code means to an operator: docs/reference/exit-codes.md is rendered from this (a code without a line
 * does not compile). */
export const EXIT_MEANINGS: Readonly<Record<keyof typeof EXIT, string>> = {
  ok: 'completed (or a `finish` with status completed)',
  generic:
    'failed, cancelled, a worker that died without a result, or `finish` with status failed/cancelled; a client subcommand that could not reach the daemon',
  config:
    'usage or configuration error, or the store is held by another process / is not an agentd database / is unreachable — always before any side effect',
  loopDetected: 'loop_detected: the model repeated one call with identical arguments 4 times',
  intel: 'the model is unreachable or answered with an error (`intel: …`)',
  refused: 'refused (`finish` with status refused)',
  mcp: "a required MCP server is unreachable (at start, or when a turn's worker connects to it)",
  budget: 'exhausted_steps (`limits.run.steps`), exhausted_tokens (`limits.run.tokens`) or a budget refusal',
  deadline: 'deadline (`limits.run.deadline`, `--deadline`)',
};
