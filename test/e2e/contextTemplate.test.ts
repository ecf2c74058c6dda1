// `agentd --context-template` and a broken context.template through the binary.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BUILTIN_PROMPT_TEMPLATE } from '../../src/context/systemPrompt.js';
import { runAgentd, tempStateDir } from './harness.js';

describe('--context-template', () => {
  it('prints the built-in template and exits 0', async () => {
    const run = await runAgentd(['--context-template']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${BUILTIN_PROMPT_TEMPLATE}\n`);
    assert.match(run.stdout, /^You are \{\{instance\}\}, an autonomous, durable agent/);
  });

  it('a context.template that does not parse exits 2 naming the key and line', async () => {
    const dir = tempStateDir();
    const file = join(dir, 'agent.yaml');
    writeFileSync(file, 'agent: {name: x}\ncontext:\n  template: "{{#if instruction}}open"\n');
    const run = await runAgentd(['--config', file, '--validate-config']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /agent\.yaml:3: context\.template: the template does not parse/);
  });
});
