import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readSpawnFrame } from '../../../src/worker/spawnFrame.js';
import { makePayload } from './turnHarness.js';

const frame = (patch: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'spawn',
  ...makePayload('http://127.0.0.1:9/v1'),
  ...patch,
});

const stdio = {
  name: 'fs',
  transport: 'stdio',
  command: 'node',
  args: ['server.js'],
  env: { PATH: '/usr/bin', API_KEY: 'k-secret-1' },
  cwd: null,
};
const remote = {
  name: 'web',
  transport: 'http',
  url: 'http://127.0.0.1:1/mcp',
  headers: { authorization: 'Bearer x' },
};

describe('readSpawnFrame: turn resources', () => {
  it('accepts mcp_servers of both transports and a code_tools_module', () => {
    const check = readSpawnFrame(frame({ mcp_servers: [stdio, remote], code_tools_module: '/opt/tools.mjs' }));
    assert.ok(check.ok);
    assert.deepEqual(check.payload.mcp_servers, [stdio, remote]);
    assert.equal(check.payload.code_tools_module, '/opt/tools.mjs');
  });

  it('defaults absent fields: no servers, no code tools', () => {
    const { mcp_servers: _s, code_tools_module: _c, ...rest } = frame();
    const check = readSpawnFrame(rest);
    assert.ok(check.ok);
    assert.deepEqual(check.payload.mcp_servers, []);
    assert.equal(check.payload.code_tools_module, null);
  });

  it("takes the supervisor's secrets to redact, and refuses a list that holds a non-string without echoing it", () => {
    const check = readSpawnFrame(frame({ redact: ['tok-one-secret'] }));
    assert.ok(check.ok);
    assert.deepEqual(check.payload.redact, ['tok-one-secret']);
    const bad = readSpawnFrame(frame({ redact: ['tok-two-secret', 7] }));
    assert.ok(!bad.ok);
    assert.equal(bad.error, "spawn frame field 'redact' is not a list of strings");
  });

  it('names the bad field and never echoes a value', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['nope', /'mcp_servers' is not array/],
      [[{ ...stdio, transport: 'ws' }], /'mcp_servers\[0\]\.transport' is not 'stdio' or 'http'/],
      [[remote, { ...stdio, cwd: 3 }], /'mcp_servers\[1\]\.cwd' is not string\|null/],
      [[{ ...stdio, env: { API_KEY: 42 } }], /'mcp_servers\[0\]\.env' holds a value that is not a string/],
      [[{ ...remote, headers: { authorization: ['Bearer leaked-value'] } }], /'mcp_servers\[0\]\.headers'/],
    ];
    for (const [servers, pattern] of cases) {
      const check = readSpawnFrame(frame({ mcp_servers: servers }));
      assert.ok(!check.ok);
      assert.match(check.error, pattern);
      assert.ok(!check.error.includes('leaked-value') && !check.error.includes('k-secret-1'));
    }
    const bad = readSpawnFrame(frame({ code_tools_module: 7 }));
    assert.ok(!bad.ok && /code_tools_module/.test(bad.error));
  });
});
