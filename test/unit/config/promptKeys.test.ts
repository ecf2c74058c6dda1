// Config of what goes into a turn's prompt: context.template, instruction files, knowledge, skills, overrides.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

const MCP = 'mcp: {servers: {kb: {url: "http://127.0.0.1:9/mcp"}}}';

describe('prompt config keys', () => {
  it('reads knowledge, skills, overrides and instruction files (paths resolved against cwd)', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      [
        MCP,
        'agent: {instruction_files: [AGENTS.md]}',
        'knowledge: {auto_context: {on: turn, top_k: 3, max_bytes: 2048}}',
        'tools: {overrides: {knowledge.search: {server: kb, tool: find}}}',
        'skills: {sources: [kb], max_loaded: 2}',
        'context:',
        '  template: |',
        '    You are {{instance}}.',
      ].join('\n'),
    );
    const config = compileIn(dir, { files: [file] });
    assert.deepEqual(config.agent.instruction_files, [join(dir, 'AGENTS.md')]);
    assert.deepEqual(config.knowledge.auto_context, { on: 'turn', top_k: 3, max_bytes: 2048 });
    assert.deepEqual(config.tools.overrides, { 'knowledge.search': { server: 'kb', tool: 'find' } });
    assert.deepEqual(config.skills.sources, ['kb']);
    assert.equal(config.context.template, 'You are {{instance}}.\n');
  });

  it('refuses a template that does not parse, naming the key and line', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', ['context:', '  template: "{{#if x}}never closed"'].join('\n'));
    assert.match(compileError(dir, { files: [file] }), /a\.yaml:2: context\.template: the template does not parse/);
  });

  it('refuses servers that are not configured, and auto_context without a route', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', ['knowledge: {server: nope}', 'skills: {sources: [gone]}'].join('\n'));
    const message = compileError(dir, { files: [file] });
    assert.match(message, /knowledge\.server: 'nope' is not a configured MCP server/);
    assert.match(message, /skills\.sources: 'gone' is not a configured MCP server/);
    const other = writeConfig(dir, 'b.yaml', 'knowledge: {auto_context: {on: turn}}');
    assert.match(compileError(dir, { files: [other] }), /knowledge\.auto_context\.on: needs a knowledge\.search route/);
  });

  it('refuses overrides of tools that cannot be mapped', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      [MCP, 'tools: {overrides: {memory.get: {server: kb, tool: x}}}'].join('\n'),
    );
    assert.match(compileError(dir, { files: [file] }), /tools\.overrides.*not a tool that can be mapped/);
  });
});
