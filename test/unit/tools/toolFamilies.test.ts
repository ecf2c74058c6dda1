// Which internal families a turn is shown, and the model's lean view of a contract (issue 14 item 5).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { internalContract, modelDef } from '../../../src/tools/internalContracts.js';
import { leanSchema } from '../../../src/tools/leanSchema.js';
import { familyFacts, familyUsable, usableInTurn } from '../../../src/tools/toolFamilies.js';
import { checkInput } from '../../../src/tools/validation.js';

const config = (env: Record<string, string> = {}) => compileConfig({ files: [], env, flags: {}, cwd: '/tmp' });

describe('familyFacts', () => {
  it('default settings: subagents usable, skills not (no skill sources)', () => {
    assert.deepEqual(familyFacts(config()), { skills: false, subagents: true });
  });
  it('subagents are unusable with freeform runs off and no template; a depth limit keeps them (P-2)', () => {
    assert.equal(familyFacts(config({ AGENTD_SUBAGENTS_ALLOW_FREEFORM: 'false' })).subagents, false);
    assert.equal(familyFacts(config({ AGENTD_LIMITS_SUBAGENTS_DEPTH: '0' })).subagents, true);
  });
  it('every other family is always usable (finish and status among them)', () => {
    const none = { skills: false, subagents: false };
    for (const family of ['finish', 'status', 'memory', 'plan', 'goal', 'side', 'message', 'think', 'ask_human']) {
      assert.equal(familyUsable(family, none), true, family);
    }
  });
});

describe('usableInTurn', () => {
  const op = { principal: 'operator', goal: false, askHuman: false };
  it("goal.set and goal.clear are the operator's; another principal's turn is not shown them", () => {
    const alice = { ...op, principal: 'user:alice', goal: true };
    assert.equal(usableInTurn('goal.set', alice), false);
    assert.equal(usableInTurn('goal.clear', alice), false);
    assert.equal(usableInTurn('goal.get', alice), true);
    assert.equal(usableInTurn('goal.set', op), true);
    assert.equal(usableInTurn('goal.set', { ...op, principal: null }), true);
  });
  it('goal.get, goal.complete and goal.clear need a goal on the conversation', () => {
    for (const name of ['goal.get', 'goal.complete', 'goal.clear']) {
      assert.equal(usableInTurn(name, op), false, name);
      assert.equal(usableInTurn(name, { ...op, goal: true }), true, name);
    }
    assert.equal(usableInTurn('memory.get', op), true);
  });
  it('ask_human needs someone to ask, or leave to wait', () => {
    assert.equal(usableInTurn('ask_human', op), false);
    assert.equal(usableInTurn('ask_human', { ...op, askHuman: true }), true);
  });
});

describe('leanSchema', () => {
  it('drops validator-only keywords and an empty required, keeping types, enums, required and descriptions', () => {
    const schema = {
      type: 'object',
      properties: {
        key: { type: 'string', minLength: 1, description: 'k' },
        pattern: { type: 'string', pattern: '^a$' },
        n: { type: 'integer', minimum: 1 },
        mode: { type: 'string', enum: ['a', 'b'] },
        list: { type: 'array', items: { type: 'string', maxLength: 3 }, minItems: 2, maxItems: 4, uniqueItems: true },
      },
      required: ['key'],
      additionalProperties: false,
    };
    assert.deepEqual(leanSchema(schema), {
      type: 'object',
      properties: {
        key: { type: 'string', description: 'k' },
        pattern: { type: 'string' },
        n: { type: 'integer' },
        mode: { type: 'string', enum: ['a', 'b'] },
        list: { type: 'array', items: { type: 'string' } },
      },
      required: ['key'],
    });
    assert.deepEqual(leanSchema({ type: 'object', properties: {}, required: [] }), { type: 'object', properties: {} });
  });
  it('leaves out inputs accepted and ignored; the validator still accepts them', () => {
    const run = internalContract('subagent.run');
    assert.ok(run);
    const shown = Object.keys(modelDef(run).input_schema['properties'] as object);
    assert.equal(shown.includes('workflow'), false);
    assert.equal(shown.includes('instruction'), true);
    assert.deepEqual(checkInput('subagent.run', { instruction: 'x', workflow: 'w' }), { ok: true });
  });
  it('the full contract still refuses what the lean view no longer says (closed objects, bounds)', () => {
    assert.equal(checkInput('memory.get', { key: 'k', extra: 1 }).ok, false);
    assert.equal(checkInput('memory.get', { key: '' }).ok, false);
    assert.equal(checkInput('memory.list', { limit: 0 }).ok, false);
  });
});
