import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STDIO_ENV_ALLOW, stdioEnv } from '../../../src/tools/mcp/mcpEnv.js';

describe('stdioEnv', () => {
  const base = {
    PATH: '/usr/bin',
    HOME: '/home/op',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TZ: 'UTC',
    OPENAI_API_KEY: 'sk-secret',
    AGENTD_TOKEN: 'tok',
    AWS_SECRET_ACCESS_KEY: 'aws',
    NODE_OPTIONS: '--import tsx',
    HTTPS_PROXY: 'http://user:pass@proxy:3128',
    UNSET: undefined,
  };

  it('inherits only allow-listed variables (and LC_*)', () => {
    assert.deepEqual(stdioEnv(base, {}), {
      PATH: '/usr/bin',
      HOME: '/home/op',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TZ: 'UTC',
    });
  });

  it('never inherits provider tokens, NODE_OPTIONS or proxies with credentials', () => {
    const env = stdioEnv(base, {});
    for (const name of ['OPENAI_API_KEY', 'AGENTD_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'NODE_OPTIONS', 'HTTPS_PROXY']) {
      assert.ok(!(name in env), name);
      assert.ok(!STDIO_ENV_ALLOW.includes(name), name);
    }
  });

  it('puts the configured env on top: it overrides and adds, whatever the names', () => {
    const env = stdioEnv(base, { PATH: '/opt/bin', GITHUB_TOKEN: 'ghp_x', HTTPS_PROXY: 'http://proxy' });
    assert.equal(env.PATH, '/opt/bin');
    assert.equal(env.GITHUB_TOKEN, 'ghp_x');
    assert.equal(env.HTTPS_PROXY, 'http://proxy');
    assert.equal(env.HOME, '/home/op');
  });

  it('drops exported shell functions', () => {
    assert.deepEqual(stdioEnv({ SHELL: '() { :; }', USER: 'op' }, {}), { USER: 'op' });
  });
});
