// docs/reference/workflow-nodes.md is generated from the node-kind registry: this fails when they differ.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NODE_KINDS } from '../../../src/workflows/nodeKinds.js';
import { renderNodeReference } from '../../../src/workflows/nodeReference.js';

// dist/test/unit/workflows → the repository root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

describe('renderNodeReference', () => {
  it('matches docs/reference/workflow-nodes.md (regenerate: node scripts/gen-workflow-nodes.mjs)', () => {
    const page = readFileSync(join(root, 'docs', 'reference', 'workflow-nodes.md'), 'utf8');
    assert.equal(page, renderNodeReference());
  });

  it('documents every kind of the registry, built or not, and the catalogue has the reference 67 plus message', () => {
    const page = renderNodeReference();
    assert.equal(NODE_KINDS.size, 68);
    for (const name of NODE_KINDS.keys()) assert.ok(page.includes(`### \`${name}\``), name);
  });
});
