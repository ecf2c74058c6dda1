// docs/reference/workflow-nodes.md is generated from the node-kind registry: this fails when they differ.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NODE_KINDS } from '../../../src/workflows/nodeKinds.js';
import { renderNodeReference } from '../../../src/workflows/nodeReference.js';

// dist/test/unit/workflows → the repository root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

describe('renderNodeReference', () => {
  it('matches docs/reference/workflow-nodes.md (regenerate: npm run build && node scripts/gen-reference.mjs)', () => {
    const page = readFileSync(join(root, 'docs', 'reference', 'workflow-nodes.md'), 'utf8');
    assert.equal(page, renderNodeReference());
  });

  it('has one writer in scripts/, the one every reference page names', () => {
    // Two scripts wrote this page before; a page naming a script that is gone would send a reader nowhere.
    const dir = join(root, 'scripts');
    const writers = readdirSync(dir).filter((f) => readFileSync(join(dir, f), 'utf8').includes('renderNodeReference'));
    assert.deepEqual(writers, ['gen-reference.mjs']);
    assert.match(renderNodeReference(), /by `node scripts\/gen-reference\.mjs`/);
  });

  it('documents every kind of the registry, built or not, and the catalogue has the reference 67 plus message', () => {
    const page = renderNodeReference();
    assert.equal(NODE_KINDS.size, 68);
    for (const name of NODE_KINDS.keys()) assert.ok(page.includes(`### \`${name}\``), name);
  });
});
