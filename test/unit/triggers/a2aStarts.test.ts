import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type A2aStartSpec, matchA2aStart } from '../../../src/triggers/a2aStarts.js';

const start = (workflow: string, node: string, command: string | null, roles: string[] = []): A2aStartSpec => ({
  id: `${workflow}.${node}`,
  workflow,
  node,
  command,
  roles,
});

describe('matchA2aStart', () => {
  const starts = [
    start('zeta', 's', 'deploy'),
    start('alpha', 'b', 'deploy', ['operator']),
    start('alpha', 'a', 'deploy', ['user']),
    start('chat', 's', null),
  ];

  it('takes the first start by workflow then node whose command and roles match', () => {
    assert.equal(matchA2aStart(starts, { command: 'deploy', role: 'user' })?.id, 'alpha.a');
    assert.equal(matchA2aStart(starts, { command: 'deploy', role: 'operator' })?.id, 'alpha.b');
    assert.equal(matchA2aStart(starts, { command: 'deploy', role: 'agent' })?.id, 'zeta.s', 'no roles: any role');
  });

  it('a start without command takes plain messages only, so an operator command stays a command', () => {
    assert.equal(matchA2aStart(starts, { command: null, role: 'user' })?.id, 'chat.s');
    assert.equal(matchA2aStart(starts, { command: 'status', role: 'operator' }), null);
    assert.equal(matchA2aStart([start('w', 's', 'deploy')], { command: null, role: 'user' }), null);
  });
});
