import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestKey } from '../../../src/config/suggest.js';
import { compileError, tempDir, writeConfig } from './configFiles.js';

describe('compileConfig validation', () => {
  it('names file:line, the key path and the closest key for an unknown key', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'agent:\n  name: x\n  max_paralel_turns: 4\n');
    assert.equal(
      compileError(dir, { files: [file] }),
      "a.yaml:3: unknown key 'agent.max_paralel_turns' (did you mean 'agent.max_parallel_turns'?)",
    );
  });

  it('reports an unknown top-level section without a far-fetched suggestion', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'agent: {name: x}\nzzzzzz: 1\n');
    assert.equal(compileError(dir, { files: [file] }), "a.yaml:2: unknown key 'zzzzzz'");
  });

  it('reports a wrong type with file:line, key path and the value', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', '# comment\nagent:\n  max_parallel_turns: four\n');
    assert.equal(
      compileError(dir, { files: [file] }),
      'a.yaml:3: agent.max_parallel_turns: expected a positive integer, got "four"',
    );
  });

  it('reports a section given a scalar', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'limits: 5\n');
    assert.equal(compileError(dir, { files: [file] }), 'a.yaml:1: limits: expected a mapping of keys');
  });

  it('reports a bad duration in a file and in --deadline', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'limits:\n  run:\n    deadline: 5 minutes\n');
    assert.equal(
      compileError(dir, { files: [file] }),
      'a.yaml:3: limits.run.deadline: invalid duration "5 minutes" (use e.g. 500ms, 30s, 5m, 1h)',
    );
    assert.equal(
      compileError(dir, { flags: { deadline: 'soon' } }),
      '--deadline: limits.run.deadline: invalid duration "soon" (use e.g. 500ms, 30s, 5m, 1h)',
    );
  });

  it('names the variable for a bad value in a known env key', () => {
    assert.equal(
      compileError(tempDir(), { env: { AGENTD_LIMITS_RUN_STEPS: '0' } }),
      'AGENTD_LIMITS_RUN_STEPS: limits.run.steps: expected a positive integer, got "0"',
    );
    assert.equal(
      compileError(tempDir(), { env: { AGENTD_OBSERVABILITY_LOG_CONTENT: 'yes' } }),
      'AGENTD_OBSERVABILITY_LOG_CONTENT: observability.log_content: expected true or false, got "yes"',
    );
  });

  it('checks enums, ranges and endpoint URLs', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      'store: {kind: disk}\ncontext: {compact_at: 1.5}\nintelligence: {endpoints: [ftp://x.test]}\n',
    );
    assert.equal(
      compileError(dir, { files: [file] }),
      [
        'a.yaml:1: store.kind: expected one of sqlite, memory, postgres, got "disk"',
        'a.yaml:2: context.compact_at: expected a number in (0, 1], got 1.5',
        'a.yaml:3: intelligence.endpoints: "ftp://x.test" is not an http:// or https:// URL',
      ].join('; '),
    );
    assert.equal(
      compileError(dir, { flags: { intelligence: 'not a url' } }),
      '--intelligence: intelligence.endpoints: "not a url" is not an http:// or https:// URL',
    );
  });

  it('names the file and line of a YAML syntax error', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'broken.yaml', 'agent:\n  name: x\n\tbad: 1\n');
    assert.equal(
      compileError(dir, { files: [file] }),
      'broken.yaml:3: invalid YAML: Tabs are not allowed as indentation',
    );
    const twice = writeConfig(dir, 'twice.yaml', 'agent:\n  name: x\n  name: y\n');
    assert.equal(compileError(dir, { files: [twice] }), 'twice.yaml:3: invalid YAML: Map keys must be unique');
  });

  it('names a missing file', () => {
    assert.equal(
      compileError(tempDir(), { files: ['missing.yaml'] }),
      'missing.yaml: cannot read config file: no such file',
    );
  });

  it('collects every problem into one line', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'agent: {nam: x}\n');
    const message = compileError(dir, { files: [file], env: { AGENTD_STORE_KIND: 'disk' } });
    assert.equal(
      message,
      "a.yaml:1: unknown key 'agent.nam' (did you mean 'agent.name'?); " +
        'AGENTD_STORE_KIND: store.kind: expected one of sqlite, memory, postgres, got "disk"',
    );
  });
});

describe('closestKey', () => {
  const known = ['agent.name', 'agent.max_parallel_turns', 'limits.run.deadline', 'limits.run.steps'];

  it('suggests a near typo', () => assert.equal(closestKey('agent.nmae', known), 'agent.name'));
  it('suggests a key with the same leaf in another section', () => {
    assert.equal(closestKey('agent.deadline', known), 'limits.run.deadline');
  });
  it('suggests nothing for an unrelated key', () => assert.equal(closestKey('foo.bar', known), undefined));
});

describe('credentials in a bad URL', () => {
  it('are not echoed in the error', async () => {
    const { compileConfig } = await import('../../../src/config/compile.js');
    assert.throws(
      () => compileConfig({ files: [], env: {}, flags: { intelligence: 'http://user:pa55word@[bad' }, cwd: '/' }),
      (err: Error) => !err.message.includes('pa55word') && err.message.includes('…@'),
    );
  });
});
