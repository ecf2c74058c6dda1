// Storage limits in the config: a principal's quotas (message_bytes, conversations, stored_bytes, beside its
// budget) and store.conversation_cache, each bad value named by file:line and key path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

function compileYaml(text: string) {
  const dir = tempDir();
  return compileIn(dir, { files: [writeConfig(dir, 'a.yaml', text)], env: {} });
}

function errorOf(text: string): string {
  const dir = tempDir();
  return compileError(dir, { files: [writeConfig(dir, 'a.yaml', text)], env: {} });
}

const principal = (quotas: string) =>
  `a2a:\n  principals:\n    - id: alice\n      role: user\n      match: {any: true}\n      quotas: ${quotas}\n`;

describe('a2a.principals[].quotas', () => {
  it('reads the storage quotas beside a budget, and leaves an absent one unlimited', () => {
    const config = compileYaml(principal('{message_bytes: 4096, conversations: 3, stored_bytes: 1048576}'));
    assert.deepEqual(config.a2a.principals[0]?.quotas, {
      message_bytes: 4096,
      conversations: 3,
      stored_bytes: 1_048_576,
    });
    const budget = compileYaml(principal('{conversations: 1, budget: {lifetime_tokens: 10}}')).a2a.principals[0];
    assert.equal(budget?.quotas?.conversations, 1);
    assert.equal(budget?.quotas?.budget?.lifetime_tokens, 10);
    assert.equal(budget?.quotas?.stored_bytes, undefined);
  });

  it('names a bad quota by file:line and key path', () => {
    assert.equal(
      errorOf(principal('{message_bytes: 0}')),
      'a.yaml:6: a2a.principals[0].quotas.message_bytes: expected a positive integer, got 0',
    );
    assert.equal(
      errorOf(principal('{stored_bytes: 10MB}')),
      'a.yaml:6: a2a.principals[0].quotas.stored_bytes: expected a positive integer, got "10MB"',
    );
    assert.equal(
      errorOf(principal('{conversation: 3}')),
      "a.yaml:6: a2a.principals[0].quotas.conversation: unknown key (did you mean 'conversations'?)",
    );
  });
});

describe('store.conversation_cache', () => {
  it('defaults to 500 conversations and 64 MiB, and reads both limits', () => {
    assert.deepEqual(compileYaml('agent:\n  name: a\n').store.conversation_cache, {
      entries: 500,
      bytes: 67_108_864,
    });
    const config = compileYaml('store:\n  conversation_cache:\n    entries: 20\n    bytes: 1000000\n');
    assert.deepEqual(config.store.conversation_cache, { entries: 20, bytes: 1_000_000 });
  });

  it('names a bad limit by file:line', () => {
    assert.match(
      errorOf('store:\n  conversation_cache:\n    entries: 0\n'),
      /^a\.yaml:3: store\.conversation_cache\.entries: expected a positive integer/,
    );
  });
});
