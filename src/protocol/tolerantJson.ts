// The tolerant JSON parse of a model's answer, shared by the worker's structured turns (worker/structuredAnswer.ts)
// and the daemon's think steps (workflows/kinds/thinkKind.ts). Pure.

export type ParseResult = { ok: true; value: unknown } | { ok: false; error: string };

function tryParse(text: string): { ok: true; value: unknown } | null {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return null;
  }
}

function stripFence(text: string): string {
  let inner = text;
  if (inner.startsWith('```json')) inner = inner.slice(7);
  else if (inner.startsWith('```')) inner = inner.slice(3);
  if (inner.endsWith('```')) inner = inner.slice(0, -3);
  return inner.trim();
}

function between(text: string, open: string, close: string): string | null {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  return start >= 0 && end > start ? text.slice(start, end + 1) : null;
}

/** Parses a model answer as JSON: raw → fence-stripped → first `{`…last `}` → first `[`…last `]`. */
export function parseTolerant(text: string): ParseResult {
  const trimmed = text.trim();
  const candidates = [trimmed, stripFence(trimmed), between(trimmed, '{', '}'), between(trimmed, '[', ']')];
  for (const candidate of candidates) {
    if (candidate === null || candidate === '') continue;
    const parsed = tryParse(candidate);
    if (parsed) return parsed;
  }
  return { ok: false, error: `the answer was not valid JSON: ${[...trimmed].slice(0, 120).join('')}` };
}
