// When a refused step is tried again (issue 13): a worker spawn the machine refused for lack of resources
// (descriptors, processes, memory) and a fold commit the store refused (disk full) retry with backoff, never in a
// hot loop and never by failing an acknowledged message. Pure policy: no clock of its own, no I/O.

/** errno codes that say "not now" rather than "never": the process table, descriptors or memory ran out. */
const TRANSIENT_SPAWN_CODES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM']);

/** The first retry's delay and the cap the doubling stops at. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/** True when a spawn that failed with `code` (an errno name) is worth another try. */
export function transientSpawnCode(code: string | null | undefined): code is string {
  return typeof code === 'string' && TRANSIENT_SPAWN_CODES.has(code);
}

/** The errno name a spawn failure carries (`err.code`), or null. */
export function spawnErrorCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** How long to wait before spawn attempt `attempt + 1` (attempt counts failures, from 1): doubling, capped. */
export function spawnRetryDelay(attempt: number): number {
  const exp = Math.max(0, Math.min(attempt - 1, 16));
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** exp);
}

/** How long after its `attempts`-th refusal a fold commit is tried again: 250 ms, doubling up to 10 s. */
export function foldRetryDelay(attempts: number): number {
  return Math.min(10_000, 250 * 2 ** Math.max(0, Math.min(attempts - 1, 16)));
}

/** What a fold's `attempts`-th refusal at `now` leaves on its job: the count, and when it is tried again. */
export function foldRetry(
  attempts: number,
  now: number,
): { foldAttempts: number; wait: { untilMs: number; reason: string } } {
  return { foldAttempts: attempts, wait: { untilMs: now + foldRetryDelay(attempts), reason: 'fold retry' } };
}
