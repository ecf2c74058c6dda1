import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnJob } from '../../../src/domain/job.js';
import { nextDispatchable } from '../../../src/supervisor/jobQueries.js';

function job(ctx: string, id: string): TurnJob {
  return {
    ctx,
    principal: 'operator',
    text: id,
    depth: 0,
    event: { id, kind: 'a2a_message', ts: 0, principal: 'operator', payload: { context_id: ctx, text: id } },
  };
}
const open = { liveTurns: 0, busy: new Set<string>(), paused: false, draining: false };

describe('nextDispatchable', () => {
  it('starts jobs front to back up to the parallel cap', () => {
    const q = [job('a', '1'), job('b', '2'), job('c', '3')];
    assert.deepEqual(nextDispatchable(q, open, 2), [0, 1]);
  });

  it('counts live turns against the cap', () => {
    const q = [job('a', '1'), job('b', '2')];
    assert.deepEqual(nextDispatchable(q, { ...open, liveTurns: 3, busy: new Set(['x', 'y', 'z']) }, 4), [0]);
  });

  it('never starts two jobs of one conversation, and a blocked job keeps its place', () => {
    const q = [job('a', '1'), job('a', '2'), job('b', '3')];
    assert.deepEqual(nextDispatchable(q, open, 4), [0, 2]);
  });

  it('skips conversations that are busy with a live turn or think child', () => {
    const q = [job('a', '1'), job('b', '2')];
    assert.deepEqual(nextDispatchable(q, { ...open, liveTurns: 1, busy: new Set(['a']) }, 4), [1]);
  });

  it('starts nothing while paused or draining', () => {
    const q = [job('a', '1')];
    assert.deepEqual(nextDispatchable(q, { ...open, paused: true }, 4), []);
    assert.deepEqual(nextDispatchable(q, { ...open, draining: true }, 4), []);
  });
});
