// JSON-RPC ids kept as sent: an integer id past 2^53 would come back rounded once parsed into a double, so its
// digits travel as a marked string through the SDK and are written back raw in every answer. Pure: the mark (a
// per-process secret, so no caller can have text of its own rewritten) is made by the caller, in httpIo.ts.

/** The id to carry for the parsed `id`: itself, or (an integer past 2^53) its raw digits behind `mark`. */
export function exactId(parsed: unknown, text: string, mark: string): unknown {
  if (typeof parsed !== 'number' || !Number.isInteger(parsed) || Number.isSafeInteger(parsed)) return parsed;
  const raw = rawIdText(text);
  return raw === undefined ? parsed : `${mark}${raw}`;
}

/** JSON text with every id marked by `mark` written back as the number the caller sent. */
export function restoreIds(json: string, mark: string): string {
  if (!json.includes(mark)) return json;
  return json.replace(new RegExp(`"${mark}(-?[0-9][0-9.eE+-]*)"`, 'g'), '$1');
}

/** The raw text of the top-level object's last `"id"` member when it is a number (as JSON.parse keeps the last). */
export function rawIdText(text: string): string | undefined {
  let depth = 0;
  let found: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (depth === 1) {
        const after = skipSpace(text, end + 1);
        if (text[after] === ':' && JSON.parse(text.slice(i, end + 1)) === 'id') {
          const start = skipSpace(text, after + 1);
          const number = /^-?[0-9][0-9.eE+-]*/.exec(text.slice(start, start + 400));
          found = number ? number[0] : undefined;
        }
      }
      i = end;
    } else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') depth -= 1;
  }
  return found;
}

function stringEnd(text: string, open: number): number {
  let i = open + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i] ?? '')) i += 1;
  return i;
}
