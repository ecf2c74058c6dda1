import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedPaths, isRestartOnly, planReload } from '../../../src/config/reloadDiff.js';
import type { Config } from '../../../src/config/types.js';
import { compileIn, tempDir, writeConfig } from './configFiles.js';

function compile(lines: string[]): Readonly<Config> {
  const dir = tempDir();
  const file = writeConfig(dir, 'a.yaml', lines.join('\n'));
  return compileIn(dir, { files: [file], env: { AGENTD_STATE_DIR: '/tmp/agentd-reload-unit' } });
}

const BASE = [
  'intelligence:',
  '  endpoints: http://127.0.0.1:9/v1',
  '  models:',
  '    main: {model: main-1}',
  '    deep: {model: deep-1}',
  '  roles:',
  '    turn: main',
  '  routes:',
  '    deep: careful work',
];

describe('planReload', () => {
  it('finds nothing to do in the same sources', () => {
    assert.deepEqual(planReload(compile(BASE), compile(BASE)), { kind: 'unchanged' });
  });

  it('names each route, model or server added or removed as its own path', () => {
    const fewer = BASE.slice(0, -2);
    assert.deepEqual(planReload(compile(BASE), compile(fewer)), {
      kind: 'apply',
      changed: ['intelligence.routes.deep'],
    });
    const instructed = [...BASE, 'agent:', '  instruction: be brief'];
    assert.deepEqual(planReload(compile(BASE), compile(instructed)), { kind: 'apply', changed: ['agent.instruction'] });
  });

  it('refuses the whole diff when any path is restart-only, naming only those', () => {
    const moved = [...BASE, 'agent:', '  name: other', '  instruction: be brief', 'store:', '  path: /tmp/elsewhere'];
    assert.deepEqual(planReload(compile(BASE), compile(moved)), {
      kind: 'restart_required',
      paths: ['agent.name', 'store.path'],
    });
  });
});

describe('isRestartOnly', () => {
  it('matches a restart-only path and what is under it, never a mere prefix of a name', () => {
    assert.equal(isRestartOnly('store.min_free'), true);
    assert.equal(isRestartOnly('a2a.listen'), true);
    assert.equal(isRestartOnly('a2a.principals'), false);
    assert.equal(isRestartOnly('agent.name'), true);
    assert.equal(isRestartOnly('agent.names'), false);
    assert.equal(isRestartOnly('lifecycle.drain_timeout'), false);
    // The skills catalogue is built once at start: a reload of its sources would be reported applied and not be.
    assert.equal(isRestartOnly('skills.sources'), true);
    assert.equal(isRestartOnly('skills.max_loaded'), false);
  });
});

describe('changedPaths', () => {
  it('compares lists whole and recurses into mappings', () => {
    assert.deepEqual(changedPaths({ a: { b: 1, c: [1] } }, { a: { b: 1, c: [1, 2] } }), ['a.c']);
    assert.deepEqual(changedPaths({ a: { x: 1 } }, { a: {} }), ['a.x']);
  });
});
