import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

describe('lifecycle.pong_timeout and lifecycle.progress_timeout', () => {
  it("default to agentd's 10 s and 120 s, and read durations from a file and the environment", () => {
    const defaults = compileIn(tempDir(), {});
    assert.equal(defaults.lifecycle.pong_timeout, 10_000);
    assert.equal(defaults.lifecycle.progress_timeout, 120_000);
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'lifecycle:\n  pong_timeout: 3s\n  progress_timeout: 45\n');
    const config = compileIn(dir, { files: [file] });
    assert.equal(config.lifecycle.pong_timeout, 3_000);
    assert.equal(config.lifecycle.progress_timeout, 45_000);
    const fromEnv = compileIn(tempDir(), { env: { AGENTD_LIFECYCLE_PONG_TIMEOUT: '900ms' } });
    assert.equal(fromEnv.lifecycle.pong_timeout, 900);
  });

  it("also read agentd's environment names, in milliseconds; the key's own variable wins", () => {
    const env = { AGENTD_PONG_TIMEOUT_MS: '2500', AGENTD_PROGRESS_TIMEOUT_MS: '60000' };
    const config = compileIn(tempDir(), { env });
    assert.equal(config.lifecycle.pong_timeout, 2_500);
    assert.equal(config.lifecycle.progress_timeout, 60_000);
    const both = compileIn(tempDir(), { env: { ...env, AGENTD_LIFECYCLE_PONG_TIMEOUT: '4s' } });
    assert.equal(both.lifecycle.pong_timeout, 4_000);
    assert.match(compileError(tempDir(), { env: { AGENTD_PONG_TIMEOUT_MS: '5' } }), /AGENTD_PONG_TIMEOUT_MS/);
  });

  it('name the key and its line for a value that is not a duration or is too short to judge a worker by', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'lifecycle:\n  pong_timeout: 10ms\n  progress_timeout: soon\n');
    const problem = compileError(dir, { files: [file] });
    assert.match(problem, /a\.yaml:2: lifecycle\.pong_timeout: duration "10ms" is shorter than the minimum of 150ms/);
    assert.match(problem, /a\.yaml:3: lifecycle\.progress_timeout: invalid duration "soon"/);
  });
});
