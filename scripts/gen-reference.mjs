// Writes docs/reference/*.md from the built code (run `npm run build` first): config keys, events, the command line
// and workflow node kinds. test/unit/docs/reference.test.ts fails when a page differs from what this writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (path) => import(join(root, 'dist/src', path));
const pages = {
  'config.md': (await dist('config/keyReference.js')).renderConfigReference(),
  'events.md': (await dist('obs/eventReference.js')).renderEventReference(),
  'cli.md': (await dist('cli/cliReference.js')).renderCliReference(),
  'workflow-nodes.md': (await dist('workflows/nodeReference.js')).renderNodeReference(),
};
const dir = join(root, 'docs/reference');
mkdirSync(dir, { recursive: true });
for (const [name, text] of Object.entries(pages)) {
  writeFileSync(join(dir, name), text);
  console.log(`wrote ${join(dir, name)}`);
}
