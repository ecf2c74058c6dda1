// `agentd status` as text (issue 18 item 13): the workers and the budget read as sentences, not JSON blobs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusLines } from '../../../src/client/statusLines.js';

describe('statusLines', () => {
  it('renders workers and each budget window readably, and every other key as key: value', () => {
    const lines = statusLines({
      instance: 'agentd',
      paused: false,
      workers: { busy: 1, spare: 2, target: 2, max: 4 },
      budget: {
        windows: [{ per: 'hour', tokens: 120, max_tokens: 1000, requests: 3, max_requests: null, resets: 'T1' }],
        lifetime_tokens: 500,
        max_lifetime_tokens: null,
        on_exhausted: 'fail',
      },
    });
    assert.deepEqual(lines, [
      'instance: agentd',
      'paused: false',
      'workers: 1 busy, 2 spare (target 2), max 4',
      'budget: per hour 120/1000 tokens, 3/∞ requests, resets T1',
      'budget: lifetime 500/∞ tokens',
    ]);
    assert.ok(!lines.join('\n').includes('{'), 'no JSON left in the text');
    assert.deepEqual(statusLines({ budget: null }), ['budget: none']);
  });

  it('renders each live workflow run with the steps it is at', () => {
    const runs = [
      {
        run: 'nap-01',
        workflow: 'nap',
        status: 'running',
        steps: [{ id: 'wait', kind: 'sleep', status: 'suspended', attempt: 1 }],
      },
      { run: 'q-02', workflow: 'q', status: 'paused', steps: [] },
    ];
    assert.deepEqual(statusLines({ runs }), [
      'runs: nap-01 nap running: step wait (sleep, suspended, attempt 1)',
      'runs: q-02 q paused',
    ]);
    assert.deepEqual(statusLines({ runs: [] }), ['runs: none']);
  });
});
