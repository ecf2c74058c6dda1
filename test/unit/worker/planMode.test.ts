import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnSpec } from '../../../src/protocol/frames.js';
import { planModeRefusal } from '../../../src/worker/toolRunner.js';

const spec: TurnSpec = {
  kind: 'turn',
  system: '',
  messages: [],
  tools: [],
  internal: [],
  mcp_routes: {},
  max_rounds: 0,
  budget_admission: false,
  idempotency_prefix: '',
  max_tokens_per_call: 0,
  turn_id: 't',
};

describe('planModeRefusal', () => {
  it('lets read-only tools run in plan mode and refuses the rest with a tool error', () => {
    const plan: TurnSpec = { ...spec, mode: 'plan', read_only: ['memory.get'] };
    assert.equal(planModeRefusal(plan, 'memory.get'), null);
    assert.match(planModeRefusal(plan, 'memory.set') ?? '', /^memory\.set: plan mode forbids/);
  });

  it('refuses nothing in execute mode', () => {
    assert.equal(planModeRefusal(spec, 'memory.set'), null);
    assert.equal(planModeRefusal({ ...spec, mode: 'execute' }, 'memory.set'), null);
  });
});
