// Load-time checks of the `tool` step (producers reference §2.3, §2.4): only internal tools a step can run, by a
// literal name, with a mapping of arguments.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { STEP_TOOLS } from '../../../src/workflows/kinds/toolKind.js';

function errors(step: Record<string, unknown>): string[] {
  const got = loadWorkflow({
    name: 'w',
    steps: {
      s: { kind: 'once' },
      x: { depends_on: 's', kind: 'tool', ...step },
      f: { kind: 'finish', depends_on: 'x' },
    },
  });
  return got.ok ? [] : got.errors;
}

const refused = (name: string) =>
  `workflow "w" step "x": tool.name ${name} cannot run as a step in this build (allowed: ${STEP_TOOLS.join(', ')}; other steps cover sleep, think, subagents, knowledge and persons)`;

describe('tool step at load', () => {
  it('accepts every step tool by name', () => {
    for (const name of STEP_TOOLS) assert.deepEqual(errors({ name, args: {} }), [], name);
  });

  it('refuses a missing name, a tool a step cannot run, a templated name and args that are not a mapping', () => {
    assert.deepEqual(errors({}), ['workflow "w" step "x": kind "tool" requires field "name"']);
    assert.deepEqual(errors({ name: 'sleep', args: { duration: 1 } }), [refused('"sleep"')]);
    assert.deepEqual(errors({ name: 'plan.create' }), [refused('"plan.create"')]);
    assert.deepEqual(errors({ name: '{{inputs.tool}}' }), [refused('"{{inputs.tool}}"')]);
    assert.deepEqual(errors({ name: 'workflow.run', args: { name: 'w' } }), [
      'workflow "w" step "x": tool.name "workflow.run" cannot run as a step: use kind: workflow (a child run of this run)',
    ]);
    assert.deepEqual(errors({ name: 'memory.get', args: ['k'] }), [
      'workflow "w" step "x": tool.args must be a mapping',
    ]);
  });
});
