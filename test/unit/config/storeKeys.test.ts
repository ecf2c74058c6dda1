// The store section's PostgreSQL keys (issue 19): kind postgres needs a URL, the URL may be a secret and is
// never quoted back, and the pool and lease keys have their defaults.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

describe('store keys for postgres', () => {
  it('refuses kind postgres without store.url, naming the key and its line', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'agent: {name: x}\nstore: {kind: postgres}\n');
    assert.equal(
      compileError(dir, { files: [file] }),
      'a.yaml:2: store.kind: postgres needs store.url (e.g. {{secret:PG_URL}})',
    );
  });

  it('takes the URL from a secret and never shows a malformed one', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'store: {kind: postgres, url: "{{secret:PG_URL}}"}\n');
    const env = { PG_URL: 'postgres://agent:s3cret-pw@db.internal:5432/agentd' };
    const config = compileIn(dir, { files: [file], env });
    assert.equal(config.store.url, env.PG_URL);
    assert.equal(config.store.pool_size, 10);
    assert.equal(config.store.lease_ttl, 15_000);
    const bad = compileError(dir, { files: [file], env: { PG_URL: 'mysql://agent:s3cret-pw@db' } });
    assert.match(bad, /store\.url: expected a postgres:\/\/host\/database URL/);
    assert.doesNotMatch(bad, /s3cret/);
  });
});
