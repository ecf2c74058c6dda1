// Configuration and store errors through the binary: exit 2 with one line naming what and where, no side effect.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { runAgentd, tempStateDir } from './harness.js';

function writeConfig(dir: string, text: string): string {
  const file = join(dir, 'agent.yaml');
  writeFileSync(file, text);
  return file;
}

describe('configuration errors', () => {
  it('an unknown key exits 2 naming file:line and the key, before creating the store', async () => {
    const dir = tempStateDir();
    const state = join(dir, 'state');
    const file = writeConfig(dir, `agent:\n  name: x\n  max_paralel_turns: 3\nstore:\n  path: ${state}\n`);
    const run = await runAgentd(['--config', file, '--prompt', 'hi']);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /agent\.yaml:3: unknown key 'agent\.max_paralel_turns' \(did you mean 'agent\.max_parallel_turns'\?\)/,
    );
    assert.equal(run.stderr.trim().split('\n').length, 1, 'one line');
    assert.equal(existsSync(state), false, 'no side effect');
  });

  it('--validate-config exits 0 for a valid file and 2 for a wrong type', async () => {
    const dir = tempStateDir();
    const good = await runAgentd([
      '--config',
      writeConfig(dir, 'limits:\n  run:\n    steps: 3\n'),
      '--validate-config',
    ]);
    assert.equal(good.code, 0, good.stderr);
    const bad = await runAgentd([
      '--config',
      writeConfig(dir, 'limits:\n  run:\n    steps: many\n'),
      '--validate-config',
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /agent\.yaml:3: limits\.run\.steps: expected a positive integer/);
    const ttl = await runAgentd([
      '--config',
      writeConfig(dir, 'a2a:\n  listen: http://127.0.0.1:0\n  pairing:\n    ttl: a while\n'),
      '--validate-config',
    ]);
    assert.equal(ttl.code, 2);
    assert.match(ttl.stderr, /agent\.yaml:4: a2a\.pairing\.ttl: /);
  });

  it('a bad --deadline, a bad env value and an unknown flag exit 2', async () => {
    const deadline = await runAgentd(['--deadline', '5 minutes', '--prompt', 'x']);
    assert.equal(deadline.code, 2);
    assert.match(deadline.stderr, /--deadline.*invalid duration "5 minutes"/);
    const env = await runAgentd(['--prompt', 'x', '--validate-config'], { env: { AGENTD_LIMITS_RUN_STEPS: 'lots' } });
    assert.equal(env.code, 2);
    assert.match(env.stderr, /AGENTD_LIMITS_RUN_STEPS/);
    const flag = await runAgentd(['--no-such-flag']);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /--no-such-flag/);
  });

  it('a missing secret exits 2 naming the key and the secret', async () => {
    const dir = tempStateDir();
    const file = writeConfig(dir, 'intelligence:\n  token: "{{secret:NOPE_KEY}}"\n');
    const run = await runAgentd(['--config', file, '--validate-config']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /intelligence\.token: secret 'NOPE_KEY' not set/);
  });

  it('with no prompt and nothing pending, says what to do and exits 2', async () => {
    const run = await runAgentd([], { env: { AGENTD_STATE_DIR: tempStateDir() } });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /nothing to do: pass --prompt/);
  });
});

describe('store errors', () => {
  it('a store another process holds exits 2 naming the path', async () => {
    const dir = tempStateDir();
    const holder = new SqliteStore(dir);
    try {
      const run = await runAgentd(['--prompt', 'hi', '--intelligence', 'http://127.0.0.1:9/v1'], {
        env: { AGENTD_STATE_DIR: dir },
      });
      assert.equal(run.code, 2);
      assert.ok(run.stderr.includes(dir), run.stderr);
      assert.match(run.stderr, /held by another process \(pid \d+\)/);
    } finally {
      holder.close();
    }
  });

  it('a file that is not an agentd database exits 2 naming it', async () => {
    const dir = tempStateDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agentd.db'), 'this is not sqlite at all, just bytes'.repeat(200));
    const run = await runAgentd(['--prompt', 'hi'], { env: { AGENTD_STATE_DIR: dir } });
    assert.equal(run.code, 2);
    assert.ok(run.stderr.includes(join(dir, 'agentd.db')), run.stderr);
  });
});
