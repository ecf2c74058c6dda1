// The `status` document as text a person reads (issue 18 item 13), shared by `agentd status` and the web UI's
// status page; `--json` keeps the document itself. Pure: values in, lines out.

type Doc = Record<string, unknown>;

const show = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
const cap = (v: unknown): string => (v === null || v === undefined ? '∞' : String(v));

/**
 * A field's value as lines where a plain rendering would be a JSON blob: `workers` (`1 busy, 2 spare (target 2),
 * max 4`), `runs` (a line per live workflow run and its steps), `budget` (one line per window, then the lifetime;
 * `none` without an instance budget) and `next_firings` (a line per schedule or loop: `<trigger> (<kind>) <ISO time>`).
 * Null for a field shown as it is.
 */
export function fieldText(key: string, value: unknown): string[] | null {
  if (key === 'runs' && Array.isArray(value)) return runLines(value as Doc[]);
  if (key === 'workers' && typeof value === 'object' && value !== null) {
    const w = value as Doc;
    return [`${show(w.busy)} busy, ${show(w.spare)} spare (target ${show(w.target)}), max ${show(w.max)}`];
  }
  if (key === 'next_firings' && Array.isArray(value))
    return value.length === 0
      ? ['none']
      : (value as Doc[]).map((f) => `${show(f.trigger)} (${show(f.kind)}) ${show(f.at)}`);
  if (key !== 'budget' || typeof value !== 'object') return null;
  if (value === null) return ['none'];
  const b = value as Doc;
  const windows = Array.isArray(b.windows) ? (b.windows as Doc[]) : [];
  const lines = windows.map(
    (w) =>
      `per ${show(w.per)} ${show(w.tokens)}/${cap(w.max_tokens)} tokens, ` +
      `${show(w.requests)}/${cap(w.max_requests)} requests, resets ${show(w.resets)}`,
  );
  lines.push(`lifetime ${show(b.lifetime_tokens)}/${cap(b.max_lifetime_tokens)} tokens`);
  return lines;
}

/** Live workflow runs, one line each: `nightly-01J… nightly running: step fetch (http, attempt 2)`. */
function runLines(runs: Doc[]): string[] {
  if (runs.length === 0) return ['none'];
  return runs.map((r) => {
    const steps = Array.isArray(r.steps) ? (r.steps as Doc[]) : [];
    const at = steps.map((s) => `${show(s.id)} (${show(s.kind)}, ${show(s.status)}, attempt ${show(s.attempt)})`);
    return `${show(r.run)} ${show(r.workflow)} ${show(r.status)}${at.length > 0 ? `: step ${at.join(', ')}` : ''}`;
  });
}

/** The status document as `key: value` lines, workers and budget readably (fieldText). */
export function statusLines(status: Doc): string[] {
  return Object.entries(status).flatMap(([key, value]) =>
    (fieldText(key, value) ?? [show(value)]).map((line) => `${key}: ${line}`),
  );
}
