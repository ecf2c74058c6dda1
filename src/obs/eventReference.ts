// Renders docs/reference/events.md from the declared event names and their docs (eventDocs*.ts), so the page
// cannot drift from the code (test/unit/docs/reference.test.ts compares them). Pure.
import { type EventSection, RUNTIME_EVENT_SECTIONS } from './eventDocs.js';
import { PRODUCER_EVENT_SECTIONS } from './eventDocsProducers.js';
import { EVENT_NAMES } from './events.js';

/** Every section of the event reference, in page order. */
export const EVENT_SECTIONS: readonly EventSection[] = [...RUNTIME_EVENT_SECTIONS, ...PRODUCER_EVENT_SECTIONS];

const cell = (text: string): string => text.replaceAll('|', '\\|');
/** Fields as code, unless the doc already marks its own code spans. */
const fieldsCell = (text: string): string => (text.includes('`') || text === '—' ? cell(text) : `\`${cell(text)}\``);

/** Declared names with no doc row, and doc rows naming an undeclared event: both must be empty. */
export function undocumentedEvents(
  names: readonly string[] = EVENT_NAMES,
  sections: readonly EventSection[] = EVENT_SECTIONS,
): { missing: string[]; unknown: string[] } {
  const documented = sections.flatMap((s) => s.rows.flatMap((r) => r.events as string[]));
  const declared = new Set(names);
  return {
    missing: names.filter((n) => !documented.includes(n)),
    unknown: documented.filter((n) => !declared.has(n)),
  };
}

/** The whole page, Markdown. Every declared name is listed, documented or not, so a new one changes the page. */
export function renderEventReference(
  names: readonly string[] = EVENT_NAMES,
  sections: readonly EventSection[] = EVENT_SECTIONS,
): string {
  const lines = [
    '# Events',
    '',
    'Generated from `src/obs/events.ts` (the declared names) and `src/obs/eventDocs.ts` / `eventDocsProducers.ts`',
    '(what each means) by `node scripts/gen-reference.mjs` (after `npm run build`); a test fails when this page and the',
    'code differ, or when a declared event has no line.',
    '',
    'One JSON object per line on stderr: `{"ts", "level", "event", "pid", "comp", …fields}`; `comp` is `supervisor` or',
    '`worker`. Registered secrets are redacted from every line, at any level. Levels are `info` unless the line says',
    'otherwise. How to read them, and metrics and traces: [Metrics, traces and events](../guide/observability.md).',
  ];
  for (const section of sections) {
    lines.push('', `## ${section.title}`, '', '| event | when | fields |', '|---|---|---|');
    for (const row of section.rows) {
      const events = row.events.map((e) => `\`${e}\``).join(' / ');
      lines.push(`| ${events} | ${cell(row.when)} | ${fieldsCell(row.fields)} |`);
    }
  }
  const { missing } = undocumentedEvents(names, sections);
  if (missing.length > 0) {
    lines.push('', '## Not yet documented', '', ...missing.map((name) => `- \`${name}\``));
  }
  return `${lines.join('\n')}\n`;
}
