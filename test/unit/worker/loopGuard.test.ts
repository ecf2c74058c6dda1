import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callSignature, LOOP_REPEATS, loopError, observeCall } from '../../../src/worker/loopGuard.js';

describe('observeCall', () => {
  it('signs a call as <name>:<compact JSON args>', () => {
    assert.equal(callSignature('fs.read', { path: '/same' }), 'fs.read:{"path":"/same"}');
  });
  it(`flags the ${LOOP_REPEATS}th identical call over the whole turn, interleaving does not reset`, () => {
    let counts = new Map<string, number>();
    const seen: boolean[] = [];
    for (const [name, args] of [
      ['fs.read', { path: '/same' }],
      ['sleep', { duration: '1s' }],
      ['fs.read', { path: '/same' }],
      ['fs.read', { path: '/other' }],
      ['fs.read', { path: '/same' }],
      ['fs.read', { path: '/same' }],
    ] as const) {
      const v = observeCall(counts, name, args);
      counts = v.counts;
      seen.push(v.looped);
    }
    assert.deepEqual(seen, [false, false, false, false, false, true]);
  });
  it('does not mutate the counts it is given', () => {
    const counts = new Map([['a:{}', 3]]);
    assert.equal(observeCall(counts, 'a', {}).looped, true);
    assert.equal(counts.get('a:{}'), 3);
  });
  it('words the error like agentd', () => {
    assert.equal(loopError('fs.read'), 'the model repeated fs.read with identical arguments 4 times');
  });
});
