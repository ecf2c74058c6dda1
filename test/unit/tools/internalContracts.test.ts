// The internal tool contract table (reference §9.5).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  grantedInternalContracts,
  internalContract,
  internalContracts,
  internalFamilies,
  internalToolDefs,
  isSuspending,
} from '../../../src/tools/internalContracts.js';
import { HANDLERS } from '../../../src/tools/internalHandlers.js';

const NAMES = [
  'finish',
  'memory.get',
  'memory.set',
  'memory.list',
  'memory.delete',
  'plan.create',
  'plan.get',
  'plan.update',
  'plan.clear',
  'sleep',
  'await',
  'think',
  'decide',
  'context.compact',
  'message.send',
  'status',
  'ask_human',
  'goal.set',
  'goal.get',
  'goal.clear',
  'goal.complete',
  'side.start',
  'side.promote',
  'skills.list',
  'skills.load',
  'skills.unload',
  'subagent.run',
  'subagent.await',
  'subagent.send',
  'subagent.status',
  'subagent.list',
  'subagent.kill',
  'subagent.result',
  'workflow.run',
  'workflow.status',
  'workflow.list',
  'workflow.cancel',
  'workflow.wait',
  'workflow.signal',
  'workflow.create',
  'workflow.update',
  'workflow.delete',
];

describe('internalContracts', () => {
  it('holds exactly the internal tools, each with a handler', () => {
    assert.deepEqual(
      internalContracts().map((c) => c.name),
      NAMES,
    );
    assert.deepEqual(Object.keys(HANDLERS).sort(), [...NAMES].sort());
  });

  it('closes every input object and describes every tool', () => {
    for (const c of internalContracts()) {
      assert.equal(c.input_schema['type'], 'object', c.name);
      assert.equal(c.input_schema['additionalProperties'], false, c.name);
      assert.equal(c.output_schema['additionalProperties'], undefined, `${c.name} output is open`);
      assert.ok(c.description.length > 10, c.name);
    }
  });

  it('grants skills.* and subagent.* only when their facts hold (issue 14 item 5)', () => {
    const none = { skills: false, subagents: false };
    const conditional = (n: string) => n.startsWith('skills.') || n.startsWith('subagent.');
    assert.deepEqual(
      grantedInternalContracts(none).map((c) => c.name),
      NAMES.filter((n) => !conditional(n)),
    );
    assert.deepEqual(
      grantedInternalContracts({ ...none, skills: true }).map((c) => c.name),
      NAMES.filter((n) => !n.startsWith('subagent.')),
    );
    assert.deepEqual(
      grantedInternalContracts({ skills: true, subagents: true }).map((c) => c.name),
      NAMES,
    );
  });

  it('names the family memory, plan, context, message, or the bare name', () => {
    assert.equal(internalContract('memory.list')?.family, 'memory');
    assert.equal(internalContract('plan.clear')?.family, 'plan');
    assert.equal(internalContract('context.compact')?.family, 'context');
    assert.equal(internalContract('message.send')?.family, 'message');
    assert.equal(internalContract('sleep')?.family, 'sleep');
    assert.equal(internalContract('ask_human')?.family, 'ask_human');
    assert.equal(internalContract('nope'), undefined);
  });
});

describe('internalToolDefs', () => {
  it('gives the model name, description and input schema for every contract', () => {
    const defs = internalToolDefs();
    assert.deepEqual(
      defs.map((d) => d.name),
      NAMES,
    );
    assert.deepEqual(defs[1], {
      name: 'memory.get',
      description: internalContract('memory.get')?.description,
      input_schema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    });
    // The contract itself stays closed for the validator; only the model's copy is lean.
    assert.equal(internalContract('memory.get')?.input_schema['additionalProperties'], false);
  });
});

describe('isSuspending', () => {
  it('is true for sleep, await, think, decide, context.compact, ask_human, goal.complete, subagent.run and .await, workflow.run and .wait', () => {
    assert.deepEqual(
      NAMES.filter((n) => isSuspending(n)),
      [
        'sleep',
        'await',
        'think',
        'decide',
        'context.compact',
        'ask_human',
        'goal.complete',
        'subagent.run',
        'subagent.await',
        'workflow.run',
        'workflow.wait',
      ],
    );
    assert.equal(isSuspending('no.such'), false);
  });
});

describe('internalFamilies', () => {
  it('lists dotted families as family.* first, then bare names, sorted and deduplicated', () => {
    assert.deepEqual(internalFamilies(['sleep', 'plan.get', 'memory.set', 'finish', 'memory.get']), [
      'memory.*',
      'plan.*',
      'finish',
      'sleep',
    ]);
  });

  it('lists every internal tool as nine dotted families and seven bare names', () => {
    assert.deepEqual(internalFamilies(NAMES), [
      'context.*',
      'goal.*',
      'memory.*',
      'message.*',
      'plan.*',
      'side.*',
      'skills.*',
      'subagent.*',
      'workflow.*',
      'ask_human',
      'await',
      'decide',
      'finish',
      'sleep',
      'status',
      'think',
    ]);
  });

  it('names only what was granted', () => {
    assert.deepEqual(internalFamilies(['plan.get']), ['plan.*']);
    assert.deepEqual(internalFamilies([]), []);
  });

  it('derives a family for a name outside the table from its first segment', () => {
    assert.deepEqual(internalFamilies(['artifact.get', 'status']), ['artifact.*', 'status']);
  });
});
