// A completed tool call as the tool journal keeps it (issue 19 item 3; interfaces reference §4.4): a turn that runs
// again (after a crash or an adoption) answers a call it already completed from here instead of repeating it.

export interface JournalEntry {
  /** The call's idempotency key: stable across reruns of the same message's turn (see worker/toolRunner.ts). */
  key: string;
  /** sha256 of the call's name and arguments: the same key with other arguments is another call. */
  args_hash: string;
  /** The tool's answer as the transcript stores it. */
  result: unknown;
  is_error: boolean;
  /** When it was recorded (epoch ms). */
  ts: number;
}
