// Durations inside workflow definitions (producers reference §2.2): a number of seconds, `250ms|30s|5m|2h`
// (bare digits = seconds) or `{ms: n}`. Pure.

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or the problem text (`unknown duration unit 'd' in 2d`). */
export function parseWorkflowDuration(value: unknown): { ok: true; ms: number } | { ok: false; error: string } {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0)
    return { ok: true, ms: Math.round(value * 1000) };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const ms = (value as Record<string, unknown>)['ms'];
    if (Object.keys(value).length === 1 && typeof ms === 'number' && ms >= 0) return { ok: true, ms: Math.round(ms) };
    return { ok: false, error: 'a duration object must be {ms: <number>}' };
  }
  if (typeof value !== 'string') return { ok: false, error: `expected a duration, got ${JSON.stringify(value)}` };
  const match = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(value.trim());
  if (!match) return { ok: false, error: `invalid duration ${JSON.stringify(value)}` };
  const unit = match[2] || 's';
  const factor = UNITS[unit];
  if (factor === undefined) return { ok: false, error: `unknown duration unit '${unit}' in ${value}` };
  return { ok: true, ms: Math.round(Number(match[1]) * factor) };
}
