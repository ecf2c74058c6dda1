// A workflow step's turn narrowed from a conversation turn's snapshot (producers reference §2.8): pure policy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SpawnPayload } from '../../../src/protocol/frames.js';
import { stepTurnPayload, THINK_MAX_ROUNDS, thinkSystem } from '../../../src/supervisor/stepTurnSpec.js';

const def = (name: string) => ({ name, description: name, input_schema: { type: 'object' } });

function base(): SpawnPayload {
  return {
    version: 1,
    intelligence: { model: 'm' } as SpawnPayload['intelligence'],
    mcp_servers: [],
    code_tools_module: null,
    limits: { max_steps: 500, max_tokens: 2_000_000, deadline_ms: 60_000 },
    telemetry: { instance: 'ag', agent_path: 'turn/c', log_level: 'info', log_content: false },
    turn: {
      kind: 'turn',
      system: 'ROOT PROMPT',
      messages: [{ role: 'user', text: 'do it', ts: 1 }],
      tools: [def('memory.get'), def('a.echo'), def('b.echo'), def('code.x')],
      more: { memory: [def('memory.set')] },
      internal: ['memory.get', 'memory.set'],
      mcp_routes: { 'a.echo': ['a', 'echo'], 'b.echo': ['b', 'echo'] },
      code_tools: ['code.x'],
      max_rounds: 0,
      budget_admission: false,
      idempotency_prefix: 'ag/c',
      max_tokens_per_call: 0,
      turn_id: 't',
    },
  };
}

describe('stepTurnPayload', () => {
  it('makes a think turn: no tools anywhere, the reasoning prompt, the schema, three rounds, reads first', () => {
    const schema = { type: 'object' };
    const got = stepTurnPayload(base(), { kind: 'think', output_schema: schema, context: ['inputs.a = 1'] }, 'ag');
    assert.equal(got.turn.kind, 'think');
    assert.deepEqual([got.turn.tools, got.turn.internal, got.turn.mcp_routes, got.turn.code_tools], [[], [], {}, []]);
    assert.equal(got.turn.more, undefined);
    assert.equal(got.turn.system, thinkSystem('ag', true));
    assert.match(got.turn.system, /Reply with ONLY one JSON object matching the schema/);
    assert.deepEqual(got.turn.output_schema, schema);
    assert.equal(got.turn.max_rounds, THINK_MAX_ROUNDS);
    assert.deepEqual(
      got.turn.messages.map((m) => m.role),
      ['system', 'user'],
    );
  });

  it('narrows an agent turn by tools and servers; chosen tools are offered at once', () => {
    const got = stepTurnPayload(
      base(),
      { kind: 'agent', tools: ['memory.*', 'a.echo', 'b.echo'], servers: ['a'] },
      'ag',
    );
    assert.deepEqual(
      got.turn.tools.map((t) => t.name),
      ['memory.get', 'a.echo', 'memory.set'],
    );
    assert.deepEqual(got.turn.mcp_routes, { 'a.echo': ['a', 'echo'] });
    assert.deepEqual(got.turn.internal, ['memory.get', 'memory.set']);
    assert.deepEqual(got.turn.code_tools, []);
    assert.equal(got.turn.more, undefined);
    assert.equal(got.turn.system, 'ROOT PROMPT');
  });

  it('servers alone keep withheld families behind tools.more; limits, system, seeds and skills apply', () => {
    const got = stepTurnPayload(
      base(),
      {
        kind: 'agent',
        servers: ['b'],
        system: 'OWN',
        max_steps: 3,
        max_tokens: 900,
        seeds: [{ role: 'assistant', text: 'earlier' }],
      },
      'ag',
      '### Skill: s\nBODY',
    );
    assert.deepEqual(Object.keys(got.turn.mcp_routes), ['b.echo']);
    assert.deepEqual(got.turn.more, { memory: [def('memory.set')] });
    assert.equal(got.turn.system, 'OWN\n\n### Skill: s\nBODY');
    assert.deepEqual(got.limits, { max_steps: 3, max_tokens: 900, deadline_ms: 60_000 });
    assert.deepEqual(
      got.turn.messages.map((m) => m.role),
      ['assistant', 'user'],
    );
  });
});
