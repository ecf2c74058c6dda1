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
