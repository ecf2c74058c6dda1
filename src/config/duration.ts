// Duration text ("250ms", "1.5s", "5m", "1h30m", "2d", a bare number of seconds) to milliseconds.
// Pure: no clock, no I/O. Shared by config compilation and the CLI's --deadline.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;
const BARE = /^\d+(?:\.\d+)?$/;

/** The hint every invalid-duration message ends with. */
export const DURATION_HINT = 'use e.g. 500ms, 30s, 5m, 1h';

/**
 * Parses a duration into whole milliseconds. A bare number is seconds; units may be chained ("1h30m").
 * Throws a plain Error `invalid duration "<text>" (use e.g. 500ms, 30s, 5m, 1h)` for anything else.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (BARE.test(trimmed)) return Math.round(Number(trimmed) * 1_000);
  let total = 0;
  let at = 0;
  PART.lastIndex = 0;
  while (at < trimmed.length) {
    PART.lastIndex = at;
    const match = PART.exec(trimmed);
    if (!match) break;
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN);
    at = PART.lastIndex;
  }
  if (trimmed.length === 0 || at !== trimmed.length || !Number.isFinite(total)) {
    throw new Error(`invalid duration ${JSON.stringify(text)} (${DURATION_HINT})`);
  }
  return Math.round(total);
}

/** Renders milliseconds in the largest unit that divides them exactly ("120s", "5m", "250ms"). */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] ?? 1;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
