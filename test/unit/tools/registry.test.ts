import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentConfig } from '../../../src/config/types.js';
import { buildRegistry, type McpToolListing, type RegistryInput, selectTools } from '../../../src/tools/registry.js';

const OBJ = { type: 'object', properties: { x: { type: 'string' } } };
const internal = (name: string, family = name.split('.')[0] ?? name) => ({
  name,
  description: `internal ${name}`,
  input_schema: OBJ,
  family,
});
const code = (name: string) => ({ name, description: `code ${name}`, input_schema: OBJ });
const listing = (server: string, ...names: string[]): McpToolListing => ({
  server,
  tools: names.map((name) => ({ name, description: `${server} ${name}`, inputSchema: OBJ })),
});

function build(input: Partial<RegistryInput>) {
  return buildRegistry({ internal: [], code: [], mcp: [], ...input });
}

describe('buildRegistry', () => {
  it('puts internal first, then code, then MCP sorted by server and tool', () => {
    const { tools, warnings } = build({
      internal: [internal('memory.get'), internal('finish')],
      code: [code('lookup')],
      mcp: [listing('zeta', 'b', 'a'), listing('alpha', 'c')],
    });
    assert.deepEqual(
      tools.map((t) => [t.name, t.class]),
      [
        ['memory.get', 'internal'],
        ['finish', 'internal'],
        ['lookup', 'code'],
        ['c', 'mcp'],
        ['a', 'mcp'],
        ['b', 'mcp'],
      ],
    );
    assert.deepEqual(warnings, []);
    assert.deepEqual(tools[3], {
      name: 'c',
      description: 'alpha c',
      input_schema: OBJ,
      class: 'mcp',
      server: 'alpha',
      wire: 'c',
      tags: [],
    });
    assert.equal(tools[0]?.family, 'memory');
  });

  it('never lets a code tool shadow an internal one', () => {
    const { tools, warnings } = build({ internal: [internal('finish')], code: [code('finish'), code('other')] });
    assert.deepEqual(
      tools.map((t) => [t.name, t.class]),
      [
        ['finish', 'internal'],
        ['other', 'code'],
      ],
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /code tool "finish" ignored/);
  });

  it('prefixes an MCP tool whose bare name is internal or code', () => {
    const { tools, warnings } = build({
      internal: [internal('finish')],
      code: [code('lookup')],
      mcp: [listing('fs', 'finish', 'lookup', 'read')],
    });
    assert.deepEqual(
      tools.filter((t) => t.class === 'mcp').map((t) => [t.name, t.wire]),
      [
        ['fs.finish', 'finish'],
        ['fs.lookup', 'lookup'],
        ['read', 'read'],
      ],
    );
    assert.equal(warnings.length, 2);
    assert.match(warnings[0] ?? '', /registered as "fs\.finish": the bare name is an internal or code tool/);
  });

  it('prefixes every server copy of a shared name, whatever the listing order', () => {
    const one = build({ mcp: [listing('a', 'echo'), listing('b', 'echo', 'only-b')] });
    const two = build({ mcp: [listing('b', 'only-b', 'echo'), listing('a', 'echo')] });
    assert.deepEqual(
      one.tools.map((t) => t.name),
      ['a.echo', 'b.echo', 'only-b'],
    );
    assert.deepEqual(two.tools, one.tools);
    assert.deepEqual(two.warnings, one.warnings);
    assert.equal(one.warnings.length, 2);
  });

  it('ignores an MCP tool whose prefixed name is taken too', () => {
    const { tools, warnings } = build({
      internal: [internal('memory.get')],
      mcp: [listing('memory', 'get'), listing('x', 'get')],
    });
    // memory's `get` and x's `get` share a bare name; `memory.get` is internal, so memory's copy has nowhere to go.
    assert.deepEqual(
      tools.map((t) => [t.name, t.class]),
      [
        ['memory.get', 'internal'],
        ['x.get', 'mcp'],
      ],
    );
    assert.ok(
      warnings.some((w) => /"get" of server "memory" ignored/.test(w)),
      warnings.join('\n'),
    );
  });

  it('keeps a bare name that looks prefixed ahead of a prefixed one', () => {
    const { tools } = build({ internal: [internal('echo')], mcp: [listing('a', 'echo'), listing('b', 'a.echo')] });
    assert.deepEqual(
      tools.map((t) => [t.name, t.server ?? '']),
      [
        ['echo', ''],
        ['a.echo', 'b'],
      ],
    );
  });

  it('ignores a tool a server lists twice', () => {
    const { tools, warnings } = build({ mcp: [listing('a', 'echo', 'echo')] });
    assert.equal(tools.length, 1);
    assert.equal(warnings.length, 1);
  });

  it('replaces a missing or invalid input schema with {type: object} and carries readOnlyHint and tags', () => {
    const { tools } = build({
      mcp: [
        {
          server: 's',
          tags: ['egress'],
          tools: [
            { name: 'a', inputSchema: undefined as unknown as Record<string, unknown> },
            { name: 'b', inputSchema: { type: 'string' }, annotations: { readOnlyHint: true } },
            { name: 'c', inputSchema: [] as unknown as Record<string, unknown> },
          ],
        },
      ],
    });
    assert.deepEqual(
      tools.map((t) => [t.input_schema, t.readOnly, t.description, t.tags]),
      [
        [{ type: 'object' }, undefined, '', ['egress']],
        [{ type: 'object' }, true, '', ['egress']],
        [{ type: 'object' }, undefined, '', ['egress']],
      ],
    );
  });
});

describe('selectTools', () => {
  const { tools } = build({
    internal: [internal('memory.get'), internal('memory.set'), internal('plan.show'), internal('finish')],
    code: [code('lookup'), code('calc')],
    mcp: [listing('fs', 'read', 'write'), listing('web', 'fetch'), listing('a', 'echo'), listing('b', 'echo')],
  });
  const pick = (selection: Partial<AgentConfig['tools']>) =>
    selectTools(tools, { internal: 'all', mcp: 'all', code: 'all', ...selection }).map((t) => t.name);

  it('grants everything by default', () => assert.equal(pick({}).length, tools.length));

  it('grants nothing of a class set to none', () => {
    assert.deepEqual(pick({ internal: 'none', mcp: 'none' }), ['lookup', 'calc']);
  });

  it('matches internal entries by name or family', () => {
    assert.deepEqual(pick({ internal: ['memory', 'finish'], mcp: 'none', code: 'none' }), [
      'memory.get',
      'memory.set',
      'finish',
    ]);
    assert.deepEqual(pick({ internal: ['plan.show', 'plan.nope'], mcp: 'none', code: 'none' }), ['plan.show']);
  });

  it('matches MCP entries by server, registered name or wire name', () => {
    assert.deepEqual(pick({ internal: 'none', code: 'none', mcp: ['fs'] }), ['read', 'write']);
    assert.deepEqual(pick({ internal: 'none', code: 'none', mcp: ['fetch', 'a.echo'] }), ['a.echo', 'fetch']);
    assert.deepEqual(pick({ internal: 'none', code: 'none', mcp: ['echo'] }), ['a.echo', 'b.echo']);
  });

  it('matches code entries by exact name only', () => {
    assert.deepEqual(pick({ internal: 'none', mcp: 'none', code: ['calc', 'look'] }), ['calc']);
  });
});
