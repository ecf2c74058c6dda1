// The tools a turn's snapshot offers (issue 14 item 5): what the turn cannot use is left out, and so is the
// persona's mention of it. Pure: buildTurnPayload over a compiled config and a conversation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { newConversation } from '../../../src/context/conversation.js';
import type { Goal } from '../../../src/domain/goal.js';
import { buildTurnPayload } from '../../../src/supervisor/turnSnapshot.js';

const config = (env: Record<string, string> = {}) => compileConfig({ files: [], env, flags: {}, cwd: '/tmp' });
const goal: Goal = {
  ...{ objective: 'ship', token_budget: null, status: 'active', turns: 0, tokens: 0 },
  ...{ continuations: 0, idle_streak: 0, created: 0, updated: 0 },
};

function offered(opts: { env?: Record<string, string>; principal?: string; humanChannel?: boolean; goal?: Goal }) {
  const conversation = newConversation('c1', 'conversation', opts.principal ?? 'operator', 0);
  if (opts.goal) conversation.controls = { mode: 'execute', goal: opts.goal, side_of: null, proposal: null };
  const build = buildTurnPayload({
    config: config(opts.env),
    conversation,
    turnId: 'turn-1',
    plan: undefined,
    memoryKeys: [],
    principal: opts.principal ?? 'operator',
    humanChannel: opts.humanChannel ?? false,
  });
  const { tools, internal, system } = build.payload.turn;
  return { names: tools.map((t) => t.name), internal, system };
}

describe('buildTurnPayload tools', () => {
  it('default settings: no ask_human (nobody to ask), goal.set but no goal.get/complete/clear (no goal)', () => {
    const { names, internal, system } = offered({});
    for (const absent of ['ask_human', 'goal.get', 'goal.complete', 'goal.clear', 'skills.list']) {
      assert.equal(names.includes(absent), false, absent);
      assert.equal(internal.includes(absent), false, absent);
    }
    for (const present of ['finish', 'status', 'memory.get', 'goal.set', 'subagent.run', 'side.start']) {
      assert.ok(names.includes(present), present);
    }
    assert.doesNotMatch(system, /ask_human/, 'the persona lists only what is offered');
  });
  it('ask_human is offered with a person to ask, or with agent.ask_human_fallback: wait', () => {
    assert.ok(offered({ humanChannel: true }).names.includes('ask_human'));
    assert.match(offered({ humanChannel: true }).system, /ask_human/, 'premise of the persona check above');
    assert.ok(offered({ env: { AGENTD_AGENT_ASK_HUMAN_FALLBACK: 'wait' } }).names.includes('ask_human'));
  });
  it('a conversation with a goal offers goal.get, goal.complete and goal.clear', () => {
    const { names } = offered({ goal });
    for (const name of ['goal.get', 'goal.complete', 'goal.clear', 'goal.set']) assert.ok(names.includes(name), name);
  });
  it("another principal's turn gets neither goal.set nor goal.clear, even with a goal", () => {
    const { names } = offered({ principal: 'user:alice', goal });
    assert.equal(names.includes('goal.set'), false);
    assert.equal(names.includes('goal.clear'), false);
    assert.ok(names.includes('goal.get') && names.includes('goal.complete'));
  });
  it('the model reads lean schemas: no additionalProperties anywhere', () => {
    const conversation = newConversation('c1', 'conversation', 'operator', 0);
    const build = buildTurnPayload({ config: config(), conversation, turnId: 't', plan: undefined, memoryKeys: [] });
    assert.equal(JSON.stringify(build.payload.turn.tools).includes('additionalProperties'), false);
  });
});
