import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveSecrets } from '../../../src/config/secrets.js';
import { createLogger } from '../../../src/obs/log.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

describe('config secrets', () => {
  it('replaces {{secret:NAME}} in file and env strings from the environment', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      'intelligence:\n  token: "{{secret:MODEL_KEY}}"\n  headers: {X-Org: "org-{{secret:ORG_ID}}"}\n',
    );
    const env = {
      MODEL_KEY: 'sk-file-secret-1',
      ORG_ID: 'org9876',
      AGENTD_AGENT_INSTRUCTION: 'key={{ secret:MODEL_KEY }}',
    };
    const config = compileIn(dir, { files: [file], env });
    assert.equal(config.intelligence.token, 'sk-file-secret-1');
    assert.deepEqual(config.intelligence.headers, { 'X-Org': 'org-org9876' });
    assert.equal(config.agent.instruction, 'key=sk-file-secret-1');
  });

  it('takes flag text literally', () => {
    const config = compileIn(tempDir(), { env: { X: 'value-x' }, flags: { prompt: 'say {{secret:X}}' } });
    assert.equal(config.agent.prompt, 'say {{secret:X}}');
  });

  it('names the key path and the secret NAME when it is missing, never a value', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'intelligence:\n  token: "{{secret:MODEL_KEY}}"\n');
    const env = { OTHER: 'other-secret-value' };
    const message = compileError(dir, { files: [file], env });
    assert.equal(message, "a.yaml:2: intelligence.token: secret 'MODEL_KEY' not set in the environment");
    assert.equal(
      compileError(dir, { env: { AGENTD_INTELLIGENCE_TOKEN: '{{secret:GONE}}' } }),
      "AGENTD_INTELLIGENCE_TOKEN: intelligence.token: secret 'GONE' not set in the environment",
    );
  });

  it('does not quote a secret value that fails validation', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'limits: {run: {steps: "{{secret:STEPS}}"}}\n');
    const message = compileError(dir, { files: [file], env: { STEPS: 'hunter2-steps' } });
    assert.equal(message, "a.yaml:1: limits.run.steps: the value of secret 'STEPS' is not a valid positive integer");
  });

  it('keeps a plain-text token out of error messages', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'intelligence:\n  token: 123456789\n  tokn: plain-token-abc\n');
    const message = compileError(dir, { files: [file] });
    assert.ok(!message.includes('plain-token-abc') && !message.includes('123456789'), message);
    assert.match(message, /intelligence\.tokn/);
  });

  it('registers resolved secrets so a logger redacts them', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'intelligence: {token: "{{secret:REDACT_ME}}"}\n');
    const config = compileIn(dir, { files: [file], env: { REDACT_ME: 'sk-very-secret-42' } });
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    log.info('loop.error', { token: config.intelligence.token, note: 'uses sk-very-secret-42 inline' });
    assert.equal(lines.length, 1);
    assert.ok(!lines[0]?.includes('sk-very-secret-42'), lines[0]);
    assert.match(lines[0] ?? '', /\[redacted\]/);
  });

  it('registers a plain-text token too', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'intelligence: {token: plain-token-xyz}\n');
    compileIn(dir, { files: [file] });
    const lines: string[] = [];
    createLogger({ write: (line) => lines.push(line) }).info('loop.error', { t: 'plain-token-xyz' });
    assert.ok(!lines[0]?.includes('plain-token-xyz'), lines[0]);
  });
});

describe('resolveSecrets', () => {
  it('walks lists and map values and reports missing names once', () => {
    const result = resolveSecrets({ a: ['{{secret:A}}', '{{secret:B}}{{secret:B}}'], b: 3 }, { A: 'x' });
    assert.deepEqual(result.value, { a: ['x', '{{secret:B}}{{secret:B}}'], b: 3 });
    assert.deepEqual(result.used, [{ name: 'A', value: 'x' }]);
    assert.deepEqual(result.missing, ['B']);
  });

  it('treats an empty variable as missing', () => {
    assert.deepEqual(resolveSecrets('{{secret:E}}', { E: '' }).missing, ['E']);
  });
});
