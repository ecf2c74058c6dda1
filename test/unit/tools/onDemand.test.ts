import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolDef } from '../../../src/protocol/messages.js';
import { keptFamilies, loadFamily, planOffer, TOOLS_MORE, withheldFamily } from '../../../src/tools/onDemand.js';

const def = (name: string): ToolDef => ({ name, description: name, input_schema: { type: 'object' } });
const TOOLS = ['finish', 'memory.get', 'memory.set', 'plan.create', 'workflow.run', 'status'].map(def);
const names = (tools: readonly ToolDef[]) => tools.map((t) => t.name);

describe('planOffer', () => {
  it('withholds the on-demand families and appends tools.more listing them in config order', () => {
    const offer = planOffer(TOOLS, ['workflow', 'memory', 'goal'], new Set());
    assert.deepEqual(names(offer.tools), ['finish', 'plan.create', 'status', TOOLS_MORE]);
    assert.deepEqual(Object.keys(offer.more ?? {}), ['memory', 'workflow']);
    const schema = offer.tools.at(-1)?.input_schema as { properties: { family: { enum: string[] } } };
    assert.deepEqual(schema.properties.family.enum, ['workflow', 'memory'], 'goal has no tool here: not listed');
    assert.match(offer.tools.at(-1)?.description ?? '', /memory \(durable notes\)/);
  });
  it('keeps a kept family up front, and withholds nothing without on-demand families', () => {
    assert.deepEqual(Object.keys(planOffer(TOOLS, ['memory', 'plan'], new Set(['plan'])).more ?? {}), ['memory']);
    const none = planOffer(TOOLS, [], new Set());
    assert.deepEqual(names(none.tools), names(TOOLS));
    assert.equal(none.more, undefined);
  });
});

describe('loadFamily', () => {
  const offer = planOffer(TOOLS, ['memory'], new Set());
  const more = offer.more ?? {};
  it('appends the family after what is shown, once', () => {
    const loaded = loadFamily(offer.tools, more, { family: 'memory' });
    assert.equal(loaded.is_error, false);
    assert.deepEqual(names(loaded.tools), [...names(offer.tools), 'memory.get', 'memory.set']);
    assert.equal(loaded.result, 'now shown: memory.get, memory.set');
    const again = loadFamily(loaded.tools, more, { family: 'memory' });
    assert.deepEqual(names(again.tools), names(loaded.tools));
    assert.match(again.result, /^already shown/);
  });
  it('refuses a family that is not withheld, naming the ones that are', () => {
    for (const args of [{ family: 'plan' }, {}, null, 'memory']) {
      const refused = loadFamily(offer.tools, more, args);
      assert.equal(refused.is_error, true);
      assert.equal(refused.result, 'tools.more: family must be one of memory');
      assert.deepEqual(names(refused.tools), names(offer.tools));
    }
  });
});

describe('withheldFamily', () => {
  it('finds a withheld tool by its name or its wire spelling', () => {
    const more = planOffer(TOOLS, ['memory'], new Set()).more;
    assert.equal(withheldFamily(more, 'memory.set'), 'memory');
    assert.equal(withheldFamily(more, 'memory_set'), 'memory');
    assert.equal(withheldFamily(more, 'plan_create'), null);
    assert.equal(withheldFamily(undefined, 'memory_set'), null);
  });
});

describe('keptFamilies', () => {
  it('keeps the families the transcript calls and those the conversation holds state for', () => {
    const messages = [
      { role: 'user' },
      { role: 'assistant', tool_calls: [{ name: 'workflow.run' }, { name: 'finish' }] },
    ];
    assert.deepEqual([...keptFamilies({ messages, goal: false, plan: false, memoryKeys: false })], ['workflow']);
    const all = keptFamilies({ messages: [], goal: true, plan: true, memoryKeys: true });
    assert.deepEqual([...all].sort(), ['goal', 'memory', 'plan']);
  });
});
