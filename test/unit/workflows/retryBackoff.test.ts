// The retry delay formula (producers reference §2.7 item 7, case P-9): deterministic, within ±20 % of the doubling base.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryDelayMs } from '../../../src/workflows/retryBackoff.js';

describe('retryDelayMs', () => {
  it('stays within [800, 1200] then [1600, 2400] for a 1 s backoff (P-9) and repeats for the same run and step', () => {
    for (const run of ['w-01', 'w-02', 'other-run']) {
      const first = retryDelayMs(1000, 1, run, 'call');
      const second = retryDelayMs(1000, 2, run, 'call');
      assert.ok(first >= 800 && first <= 1200, `${first}`);
      assert.ok(second >= 1600 && second <= 2400, `${second}`);
      assert.equal(retryDelayMs(1000, 1, run, 'call'), first);
    }
  });

  it('spreads runs apart (not every run waits the same) and caps the doubling at 2^10', () => {
    const delays = new Set(['a', 'b', 'c', 'd', 'e'].map((r) => retryDelayMs(1000, 1, r, 'call')));
    assert.ok(delays.size > 1);
    assert.ok(retryDelayMs(1, 30, 'r', 's') <= 1024 * 1.2 + 1);
    assert.equal(retryDelayMs(0, 1, 'r', 's'), 0);
  });
});
