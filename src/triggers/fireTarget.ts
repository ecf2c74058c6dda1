// The seam between a trigger and what it starts (a workflow run, wired by the workflow engine later): one call per
// firing, carrying the key that makes it idempotent.

/** What a schedule or webhook firing starts. */
export interface FireTarget {
  /**
   * Starts the work of one firing. Must be idempotent on `idempotencyKey` (the engine accepts it as an inbox event
   * with that key as its dedupe key): a firing interrupted by a crash is made again with the same key.
   * `payload` is the start step's output (producers reference §3.2). Resolves once the start is accepted, never
   * at the run's end: a schedule's timer (and the supervisor's drain) waits for it.
   */
  fire(
    triggerId: string,
    occurrenceMs: number,
    idempotencyKey: string,
    payload: unknown,
    /** Who the work acts for when the caller is known (a webhook's authenticated principal); else the target's. */
    principal?: string | null,
  ): Promise<void>;
  /** The end of the run the firing with this key started (a webhook answered `respond: sync` waits for it). */
  outcome?(idempotencyKey: string): Promise<FireResult>;
  /** Whether a run this trigger started is still live (the overlap policy asks). */
  live?(triggerId: string): boolean;
  /** Cancels the live runs this trigger started (overlap `cancel_previous`). */
  cancel?(triggerId: string): void;
}

/** What a firing's run ended with (producers reference §3.7: `{status, output, error}`). */
export interface FireResult {
  status: string;
  output?: unknown;
  error?: string | null;
}
