// Waiting on the shared store for what another replica writes (issue 19: a cancel asked of the replica that runs a
// task or a run): no NOTIFY carries the end, so the store is read, the gaps growing, until `waitMs` passed.

/** The first gap between reads, doubled after each read up to the longest. */
const FIRST_READ_MS = 100;
const LONGEST_READ_MS = 1_000;

/** Reads at once, then again with growing gaps: the first non-null answer, or null once `waitMs` passed on `now`. */
export async function readUntil<T>(
  read: () => Promise<T | null>,
  waitMs: number,
  now: () => number = Date.now,
): Promise<T | null> {
  const until = now() + waitMs;
  for (let gap = FIRST_READ_MS; ; gap = Math.min(gap * 2, LONGEST_READ_MS)) {
    const found = await read();
    if (found !== null) return found;
    if (now() >= until) return null;
    await new Promise((resolve) => setTimeout(resolve, Math.min(gap, Math.max(0, until - now()))));
  }
}
