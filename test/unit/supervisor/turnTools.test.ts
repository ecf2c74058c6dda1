// The tools a turn's snapshot offers (issue 14 item 5): what the turn cannot use is left out, and so is the
// persona's mention of it. Pure: buildTurnPayload over a compiled config and a conversation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { newConversation } from '../../../src/context/conversation.js';
import type { Goal } from '../../../src/domain/goal.js';
import type { Msg } from '../../../src/protocol/messages.js';
import { buildTurnPayload } from '../../../src/supervisor/turnSnapshot.js';
import { emptyToolPlan, type ToolPlan } from '../../../src/tools/toolPlan.js';

const config = (env: Record<string, string> = {}) => compileConfig({ files: [], env, flags: {}, cwd: '/tmp' });
const goal: Goal = {
  ...{ objective: 'ship', token_budget: null, status: 'active', turns: 0, tokens: 0 },
  ...{ continuations: 0, idle_streak: 0, created: 0, updated: 0 },
};

interface OfferOpts {
  env?: Record<string, string>;
  principal?: string;
  humanChannel?: boolean;
  goal?: Goal;
  memoryKeys?: string[];
  messages?: Msg[];
}

/** `names`: every tool the turn can reach (shown first, or through tools.more); `shown`: the first offer. */
function offered(opts: OfferOpts) {
  const conversation = newConversation('c1', 'conversation', opts.principal ?? 'operator', 0);
  if (opts.goal) conversation.controls = { mode: 'execute', goal: opts.goal, side_of: null, proposal: null };
  conversation.messages.push(...(opts.messages ?? []));
  const build = buildTurnPayload({
    config: config(opts.env),
    conversation,
    turnId: 'turn-1',
    plan: undefined,
    memoryKeys: opts.memoryKeys ?? [],
    principal: opts.principal ?? 'operator',
    humanChannel: opts.humanChannel ?? false,
  });
  const { tools, internal, system, more } = build.payload.turn;
  const shown = tools.map((t) => t.name);
  const withheld = Object.values(more ?? {}).flatMap((defs) => defs.map((t) => t.name));
  return { names: [...shown, ...withheld], shown, more: Object.keys(more ?? {}), internal, system };
}

describe('buildTurnPayload tools', () => {
  it('default settings: no ask_human (nobody to ask); the whole goal family beside goal.set', () => {
    const { names, internal, system } = offered({});
    for (const absent of ['ask_human', 'skills.list']) {
      assert.equal(names.includes(absent), false, absent);
      assert.equal(internal.includes(absent), false, absent);
    }
    const present = ['finish', 'status', 'memory.get', 'goal.set', 'goal.get', 'goal.complete', 'goal.clear'];
    for (const name of [...present, 'subagent.run']) assert.ok(names.includes(name), name);
    assert.doesNotMatch(system, /ask_human/, 'the persona lists only what is offered');
  });
  it("another principal's turn without a goal gets no goal tool", () => {
    const { names } = offered({ principal: 'user:alice' });
    assert.equal(
      names.some((n) => n.startsWith('goal.')),
      false,
    );
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
  it('default settings withhold memory, plan, goal, side, subagent and workflow behind tools.more', () => {
    const { shown, more, internal } = offered({});
    assert.deepEqual(more, ['memory', 'plan', 'goal', 'side', 'subagent', 'workflow']);
    assert.equal(shown.at(-1), 'tools.more', 'the meta-tool goes last: the tools before it keep their bytes');
    for (const name of ['finish', 'status', 'think', 'context.compact']) assert.ok(shown.includes(name), name);
    assert.equal(
      shown.some((n) => /^(memory|plan|goal|side|subagent|workflow)\./.test(n)),
      false,
    );
    assert.ok(internal.includes('plan.create'), 'withheld tools still route');
  });
  it('agent.tools.on_demand: [] shows every family up front, with no tools.more', () => {
    const { shown, more } = offered({ env: { AGENTD_AGENT_TOOLS_ON_DEMAND: '' } });
    assert.deepEqual(more, []);
    assert.equal(shown.includes('tools.more'), false);
    assert.ok(shown.includes('plan.create') && shown.includes('workflow.run'));
  });
  it('keeps up front a family the transcript calls, a goal, listed memory keys', () => {
    const call: Msg = { role: 'assistant', tool_calls: [{ id: 'c', name: 'plan.create', arguments: {} }], ts: 0 };
    const used = offered({ messages: [call], goal, memoryKeys: ['k'] });
    for (const family of ['plan', 'goal', 'memory']) assert.equal(used.more.includes(family), false, family);
    assert.ok(used.shown.includes('plan.update') && used.shown.includes('goal.complete'));
    assert.ok(used.shown.includes('memory.get'));
    assert.ok(used.more.includes('workflow'), 'premise: the others stay withheld');
  });
  it("tools.more does not offer a family the turn cannot use (another principal's goal tools)", () => {
    const { shown } = offered({ principal: 'user:alice' });
    const more = offered({ principal: 'user:alice' }).more;
    assert.equal(more.includes('goal'), false);
    assert.ok(shown.includes('tools.more') && more.includes('plan'));
  });
  it('the model reads lean schemas: no additionalProperties anywhere', () => {
    const conversation = newConversation('c1', 'conversation', 'operator', 0);
    const build = buildTurnPayload({ config: config(), conversation, turnId: 't', plan: undefined, memoryKeys: [] });
    assert.equal(JSON.stringify(build.payload.turn.tools).includes('additionalProperties'), false);
  });
});

describe('buildTurnPayload ## Workflows', () => {
  const def = {
    ...{ name: 'nightly', description: 'Reports.', armed: true, inputsSchema: null, outputsSchema: null },
    ...{ concurrency: { maxRuns: 4, onOverflow: 'queue' as const }, priority: 'normal' as const, hash: 'h' },
    ...{ limits: { steps: null, tokens: null, deadlineMs: null }, steps: {} },
  };
  const build = (plan?: ToolPlan) =>
    buildTurnPayload({
      ...{ config: config(), conversation: newConversation('c1', 'conversation', 'operator', 0), turnId: 't' },
      ...{ plan, memoryKeys: [], principal: 'operator', workflows: [def] },
    }).payload.turn.system;

  it('lists the workflows to a turn that may call workflow.run, and not to one that may not', () => {
    assert.ok(build().includes('## Workflows (workflow.run {name, inputs}; workflow.wait {run})\n- nightly: Reports.'));
    const noWorkflowTools = { ...emptyToolPlan(), internal: ['memory.get'] };
    assert.ok(!build(noWorkflowTools).includes('## Workflows'));
  });
});
