// admitConnection: under the cap a connection is admitted; at it, the longest-idle one makes room, and only when
// every connection is answering a request is the new one refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitConnection } from '../../../src/a2a/connectionAdmission.js';

const view = (key: string, busy: number, lastActive: number, served = false) => ({ key, busy, served, lastActive });

describe('admitConnection', () => {
  it('admits under the cap', () => {
    assert.deepEqual(admitConnection([view('a', 0, 1)], 2), { kind: 'admit' });
    assert.deepEqual(admitConnection([], 1), { kind: 'admit' });
  });

  it('at the cap, evicts the connection idle the longest, never a busy one', () => {
    const open = [view('busy-old', 1, 1), view('idle-new', 0, 50), view('idle-old', 0, 10)];
    assert.deepEqual(admitConnection(open, 3), { kind: 'evict', victim: 'idle-old' });
  });

  it('evicts a connection that never completed a request before a kept-alive served one, however old', () => {
    // Premise: by lastActive alone the served client (its last response ended at 5) is the oldest and would go.
    const open = [view('served', 0, 5, true), view('flood-a', 0, 30), view('flood-b', 0, 20)];
    assert.deepEqual(admitConnection(open, 3), { kind: 'evict', victim: 'flood-b' });
  });

  it('evicts the oldest served connection only when every idle one was served', () => {
    const open = [view('served-new', 0, 50, true), view('served-old', 0, 5, true), view('busy', 1, 1)];
    assert.deepEqual(admitConnection(open, 3), { kind: 'evict', victim: 'served-old' });
  });

  it('refuses when every connection is answering a request', () => {
    assert.deepEqual(admitConnection([view('a', 1, 1), view('b', 2, 2)], 2), { kind: 'refuse' });
  });
});
