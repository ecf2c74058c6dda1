// admitConnection: under the cap a connection is admitted; at it, the longest-idle one makes room, and only when
// every connection is answering a request is the new one refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitConnection } from '../../../src/a2a/connectionAdmission.js';

const view = (key: string, busy: number, lastActive: number) => ({ key, busy, lastActive });

describe('admitConnection', () => {
  it('admits under the cap', () => {
    assert.deepEqual(admitConnection([view('a', 0, 1)], 2), { kind: 'admit' });
    assert.deepEqual(admitConnection([], 1), { kind: 'admit' });
  });

  it('at the cap, evicts the connection idle the longest, never a busy one', () => {
    const open = [view('busy-old', 1, 1), view('idle-new', 0, 50), view('idle-old', 0, 10)];
    assert.deepEqual(admitConnection(open, 3), { kind: 'evict', victim: 'idle-old' });
  });

  it('refuses when every connection is answering a request', () => {
    assert.deepEqual(admitConnection([view('a', 1, 1), view('b', 2, 2)], 2), { kind: 'refuse' });
  });
});
