// Skills in the prompt (reference §8.4): `@skill:name` references in a message, the catalogue and loaded-body
// renderings, and the load rule. Pure: names and texts in, names and texts out.

/** One catalogue entry: a skill an MCP prompt or resource provides. */
export interface SkillEntry {
  name: string;
  description: string;
}

const NAME = /^[A-Za-z0-9_\-./]+/;

/** Skill names referenced with `prefix` (default `@skill:`), trailing `.`/`/` stripped, in order, once each. */
export function parseSkillReferences(text: string, prefix: string): string[] {
  if (prefix === '') return [];
  const names: string[] = [];
  let at = text.indexOf(prefix);
  while (at >= 0) {
    const match = NAME.exec(text.slice(at + prefix.length));
    const name = (match?.[0] ?? '').replace(/[./]+$/, '');
    if (name !== '' && !names.includes(name)) names.push(name);
    at = text.indexOf(prefix, at + prefix.length);
  }
  return names;
}

/** `Available skills (…):` then `- name: description`; '' for an empty catalogue. */
export function renderCatalogue(entries: readonly SkillEntry[], prefix: string): string {
  if (entries.length === 0) return '';
  const head = `Available skills (reference one as ${prefix}<name> or call skills.load to read its full instructions):`;
  const lines = entries.map((e) =>
    e.description.trim() === '' ? `- ${e.name}` : `- ${e.name}: ${e.description.trim()}`,
  );
  return [head, ...lines].join('\n');
}

/** `Loaded skills — follow these instructions when relevant:` then `### Skill: <name>` blocks; '' for none. */
function renderLoaded(bodies: ReadonlyArray<{ name: string; body: string }>): string {
  if (bodies.length === 0) return '';
  const blocks = bodies.map((b) => `### Skill: ${b.name}\n${b.body.trim()}`);
  return ['Loaded skills — follow these instructions when relevant:', ...blocks].join('\n\n');
}

/** The prompt's skills section: the catalogue, then the loaded bodies. */
export function renderSkills(
  entries: readonly SkillEntry[],
  bodies: ReadonlyArray<{ name: string; body: string }>,
  prefix: string,
): string {
  return [renderCatalogue(entries, prefix), renderLoaded(bodies)].filter((s) => s !== '').join('\n\n');
}

export type LoadDecision = { kind: 'already' } | { kind: 'load' } | { kind: 'refused'; reason: string };

/** Whether `name` may join the conversation's loaded skills (at most `max`). */
export function planSkillLoad(loaded: readonly string[], name: string, max: number): LoadDecision {
  if (loaded.includes(name)) return { kind: 'already' };
  if (loaded.length >= max) {
    return { kind: 'refused', reason: `${max} skills are loaded already (skills.max_loaded); unload one first` };
  }
  return { kind: 'load' };
}

/** A body cut to `maxBytes` UTF-8 bytes (on a character boundary), marked when cut. */
export function capBody(body: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(body);
  if (bytes.length <= maxBytes) return body;
  const cut = new TextDecoder().decode(bytes.slice(0, maxBytes)).replace(/\uFFFD$/, '');
  return `${cut}\n[… cut at ${maxBytes} bytes]`;
}
