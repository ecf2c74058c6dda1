// Renders docs/reference/config.md from the key table (describeConfigKeys), so the page cannot drift from the
// schema (test/unit/docs/reference.test.ts compares them). Pure.
import { type ConfigKeyDoc, describeConfigKeys } from './describe.js';

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const code = (text: string): string => `\`${text.replaceAll('|', '\\|')}\``;

/** The whole page, Markdown; `keys` defaults to the schema's. */
export function renderConfigReference(keys: readonly ConfigKeyDoc[] = describeConfigKeys()): string {
  const lines = [
    '# Configuration keys',
    '',
    'Generated from the config schema (`src/config/schema.ts`) by `node scripts/gen-reference.mjs` (after',
    '`npm run build`); a test fails when this page and the schema differ. How the layers combine (defaults < files <',
    'env < flags), secrets and validation errors: [Configuration](../guide/configuration.md).',
    '',
    'Every key can be written in a YAML file at its dotted path. **env** is the environment variable that sets it',
    '(`AGENTD_<PATH>`, only for keys a line of text can hold: lists as comma lists); **flag** the command-line flag.',
  ];
  for (const section of sectionsOf(keys)) {
    lines.push('', `## ${section}`, '', '| key | type | default | env / flag | meaning |', '|---|---|---|---|---|');
    for (const key of keys.filter((k) => sectionOf(k.path) === section)) {
      const setBy = [key.env, key.flag].filter((s): s is string => s !== null).map(code);
      lines.push(
        `| ${code(key.path)} | ${cell(key.type)} | ${code(key.default)} | ${setBy.join(' ') || '—'} | ${cell(key.doc)} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

const sectionOf = (path: string): string => path.split('.')[0] ?? path;

/** Top-level sections in the order their first key appears. */
function sectionsOf(keys: readonly ConfigKeyDoc[]): string[] {
  return [...new Set(keys.map((k) => sectionOf(k.path)))];
}
