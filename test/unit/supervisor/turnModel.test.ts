// Which model a turn runs on (reference §5.2): roles.turn, a chosen route, or roles.turn after a removed route.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { turnModel } from '../../../src/supervisor/turnSnapshot.js';
import { compileIn, tempDir, writeConfig } from '../config/configFiles.js';

const dir = tempDir();
const file = writeConfig(
  dir,
  'agent.yaml',
  [
    'intelligence:',
    '  endpoints: http://127.0.0.1:9/v1',
    '  models: {main: {model: main-model}, deep: {model: deep-model}}',
    '  roles: {turn: main}',
    '  routes: {deep: careful multi-step work}',
  ].join('\n'),
);
const config = compileIn(dir, { files: [file] });

describe('turnModel', () => {
  it('runs on roles.turn without a route', () => {
    const model = turnModel(config, null);
    assert.equal(model.via, 'role');
    assert.equal(model.spec.model, 'main-model');
  });

  it('runs on the route the verdict chose', () => {
    const model = turnModel(config, 'deep');
    assert.deepEqual([model.via, model.spec.model], ['route', 'deep-model']);
  });

  it('falls back to roles.turn when a reload removed the route', () => {
    const reloaded = { ...config, intelligence: { ...config.intelligence, routes: {} } };
    const model = turnModel(reloaded, 'deep');
    assert.deepEqual([model.via, model.spec.model], ['route_removed', 'main-model']);
  });
});
