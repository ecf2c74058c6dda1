import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PolicyRule } from '../../../src/config/types.js';
import { buildRegistry } from '../../../src/tools/registry.js';
import { planTools } from '../../../src/tools/toolPlan.js';

const OBJ = { type: 'object' };
const { tools } = buildRegistry({
  internal: [{ name: 'memory.get', description: 'get', input_schema: OBJ, family: 'memory' }],
  code: [{ name: 'calc', description: 'calc', input_schema: OBJ }],
  mcp: [
    { server: 'web', tools: [{ name: 'fetch', inputSchema: OBJ }] },
    {
      server: 'fs',
      tools: [
        { name: 'read', inputSchema: OBJ, annotations: { readOnlyHint: true } },
        { name: 'write', inputSchema: OBJ, annotations: { readOnlyHint: false } },
      ],
    },
    { server: 'b', tools: [{ name: 'echo', inputSchema: OBJ }] },
    { server: 'a', tools: [{ name: 'echo', inputSchema: OBJ }] },
  ],
});

function deny(match: PolicyRule['match']): PolicyRule {
  return { name: 'r', match, action: 'deny', on_timeout: 'deny', timeout: 1_000 };
}

describe('planTools', () => {
  it('splits internal, MCP routes and code, with the servers sorted', () => {
    const plan = planTools(tools, []);
    assert.deepEqual(plan, {
      tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
      internal: ['memory.get'],
      mcp_routes: {
        'a.echo': ['a', 'echo'],
        'b.echo': ['b', 'echo'],
        read: ['fs', 'read'],
        write: ['fs', 'write'],
        fetch: ['web', 'fetch'],
      },
      mcp_servers: ['a', 'b', 'fs', 'web'],
      code: ['calc'],
      judged: [],
      // Plan mode: read-only internal tools and MCP tools that say readOnlyHint: true; code tools never.
      read_only: ['memory.get', 'read'],
    });
    assert.deepEqual(
      plan.tools.map((t) => t.name),
      ['memory.get', 'calc', 'a.echo', 'b.echo', 'read', 'write', 'fetch'],
    );
  });

  it('moves an MCP tool a policy could apply to into the internal class', () => {
    const plan = planTools(tools, [deny({ tool: 'write' })]);
    assert.deepEqual(plan.internal, ['memory.get', 'write']);
    assert.deepEqual(plan.judged, ['write']);
    assert.equal(Object.hasOwn(plan.mcp_routes, 'write'), false);
    assert.deepEqual(plan.mcp_servers, ['a', 'b', 'fs', 'web']);
  });

  it('drops a server from the connection list when all its tools are judged', () => {
    const plan = planTools(tools, [deny({ server: 'fs' }), deny({ tool: 'fetch', principal: 'user:*' })]);
    assert.deepEqual(plan.judged, ['read', 'write', 'fetch']);
    assert.deepEqual(plan.mcp_servers, ['a', 'b']);
    assert.deepEqual(plan.code, ['calc']);
  });

  it('judges every MCP tool under a catch-all rule but never moves code tools', () => {
    const plan = planTools(tools, [deny({})]);
    assert.deepEqual(plan.mcp_routes, {});
    assert.deepEqual(plan.mcp_servers, []);
    assert.deepEqual(plan.code, ['calc']);
    assert.equal(plan.judged.length, 5);
  });
});
