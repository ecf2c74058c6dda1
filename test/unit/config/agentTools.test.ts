import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeConfigKeys } from '../../../src/config/compile.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

describe('agent.tools and agent.ask_human_fallback', () => {
  it('reads all, none and lists from a file', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      'agent:\n  tools: {internal: [memory, finish], mcp: none, on_demand: []}\n  ask_human_fallback: wait\n',
    );
    const config = compileIn(dir, { files: [file] });
    assert.deepEqual(config.agent.tools, { internal: ['memory', 'finish'], mcp: 'none', code: 'all', on_demand: [] });
    assert.equal(config.agent.ask_human_fallback, 'wait');
  });

  it('reads comma lists and keywords from the environment', () => {
    const config = compileIn(tempDir(), {
      env: {
        AGENTD_AGENT_TOOLS_INTERNAL: 'memory, plan',
        AGENTD_AGENT_TOOLS_MCP: 'none',
        AGENTD_AGENT_TOOLS_CODE: ' all ',
        AGENTD_AGENT_TOOLS_ON_DEMAND: 'plan, workflow',
        AGENTD_AGENT_ASK_HUMAN_FALLBACK: 'wait',
      },
    });
    assert.deepEqual(config.agent.tools, {
      internal: ['memory', 'plan'],
      mcp: 'none',
      code: 'all',
      on_demand: ['plan', 'workflow'],
    });
    assert.equal(config.agent.ask_human_fallback, 'wait');
  });

  it('reports bad selections and fallbacks', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      'agent:\n  tools:\n    internal: some\n    mcp: [fs, 3, ""]\n  ask_human_fallback: retry\n',
    );
    assert.equal(
      compileError(dir, { files: [file] }),
      [
        'a.yaml:3: agent.tools.internal: expected all, none or a list of names, got "some"',
        'a.yaml:4: agent.tools.mcp[1]: expected a name, got a number',
        'a.yaml:5: agent.ask_human_fallback: expected one of fail, wait, got "retry"',
      ].join('; '),
    );
    const empty = writeConfig(dir, 'b.yaml', 'agent:\n  tools:\n    code: [fs, ""]\n');
    assert.equal(compileError(dir, { files: [empty] }), 'b.yaml:3: agent.tools.code[1]: expected a name, got ""');
    assert.equal(
      compileError(dir, { env: { AGENTD_AGENT_TOOLS_CODE: 'a,,b' } }),
      'AGENTD_AGENT_TOOLS_CODE: agent.tools.code: expected all, none or a list of names, comma-separated',
    );
  });

  it('agent.tools.on_demand names dotted internal families only', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'agent:\n  tools:\n    on_demand: [plan, finish]\n');
    assert.match(compileError(dir, { files: [file] }), /^a\.yaml:3: agent\.tools\.on_demand\[1\]: .*finish/);
  });

  it('describes the new keys', () => {
    const keys = new Map(describeConfigKeys().map((key) => [key.path, key]));
    assert.deepEqual(
      ['agent.tools.internal', 'agent.ask_human_fallback', 'security.policies'].map((path) => {
        const key = keys.get(path);
        return key && [key.default, key.env];
      }),
      [
        ['"all"', 'AGENTD_AGENT_TOOLS_INTERNAL'],
        ['"fail"', 'AGENTD_AGENT_ASK_HUMAN_FALLBACK'],
        ['[]', null],
      ],
    );
  });
});
