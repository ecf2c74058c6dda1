// Writes docs/reference/workflow-nodes.md from the built node-kind registry (run `npm run build` first).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { renderNodeReference } = await import(join(root, 'dist/src/workflows/nodeReference.js'));
const target = join(root, 'docs/reference/workflow-nodes.md');
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, renderNodeReference());
console.log(`wrote ${target}`);
