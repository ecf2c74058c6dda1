// Renders docs/reference/workflow-nodes.md from the node-kind registry, so the page cannot drift from the code
// (test/unit/workflows/nodeReference.test.ts compares the file with this). Pure.
import type { KindCategory } from './nodeKind.js';
import { COMMON_FIELDS, NODE_KINDS, REFUSED_COMMON } from './nodeKinds.js';

const CATEGORIES: ReadonlyArray<[KindCategory, string]> = [
  ['start', 'Start nodes'],
  ['control', 'Control'],
  ['data', 'Data'],
  ['integration', 'Integration'],
  ['intelligence', 'Intelligence'],
];

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The whole page, Markdown. */
export function renderNodeReference(): string {
  const lines = [
    '# Workflow node kinds',
    '',
    'Generated from `src/workflows/nodeKinds.ts` by `node scripts/gen-reference.mjs` (after `npm run build`); a test',
    'fails when this page and the registry differ. A kind marked **not built** is refused when a definition is loaded',
    '(`kind "<k>" is not implemented in this build`), never accepted and ignored.',
    '',
    '## Fields every step may carry',
    '',
    '| field | meaning |',
    '|---|---|',
    ...Object.entries(COMMON_FIELDS).map(([name, doc]) => `| \`${name}\` | ${cell(doc)} |`),
    '',
    `Refused in this build (an error at load, not ignored): ${REFUSED_COMMON.map((f) => `\`${f}\``).join(', ')}.`,
  ];
  for (const [category, title] of CATEGORIES) {
    const kinds = [...NODE_KINDS.values()].filter((k) => k.category === category);
    lines.push('', `## ${title}`, '');
    for (const kind of kinds) {
      lines.push(`### \`${kind.name}\`${kind.implemented ? '' : ' — not built'}`, '', kind.doc, '');
      const fields = Object.entries(kind.fields);
      if (fields.length === 0) {
        lines.push('No fields of its own.', '');
        continue;
      }
      lines.push('| field | required | meaning |', '|---|---|---|');
      for (const [name, spec] of fields)
        lines.push(`| \`${name}\` | ${spec.required ? 'yes' : ''} | ${cell(spec.doc)} |`);
      lines.push('');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
