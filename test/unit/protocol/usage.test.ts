import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addUsage, cacheFields, chargedTokens, hasUsage, usageSince } from '../../../src/protocol/usage.js';

describe('usage arithmetic', () => {
  it('adds cache counts apart from input and leaves zero cache counts out', () => {
    const a = { input_tokens: 5, output_tokens: 1, cache_read_tokens: 100 };
    const b = { input_tokens: 2, output_tokens: 3, cache_write_tokens: 40 };
    assert.deepEqual(addUsage(a, b), {
      input_tokens: 7,
      output_tokens: 4,
      cache_read_tokens: 100,
      cache_write_tokens: 40,
    });
    assert.deepEqual(addUsage({ input_tokens: 1, output_tokens: 1 }, { input_tokens: 0, output_tokens: 0 }), {
      input_tokens: 1,
      output_tokens: 1,
    });
  });
  it('a delta between running totals carries cache growth and never goes below zero', () => {
    const reported = { input_tokens: 10, output_tokens: 5, cache_read_tokens: 100 };
    const totals = { input_tokens: 12, output_tokens: 5, cache_read_tokens: 300 };
    assert.deepEqual(usageSince(totals, reported), { input_tokens: 2, output_tokens: 0, cache_read_tokens: 200 });
    assert.deepEqual(usageSince(reported, totals), { input_tokens: 0, output_tokens: 0 });
  });
  it('a cache-only increment is still usage; event fields appear only when non-zero', () => {
    assert.equal(hasUsage({ input_tokens: 0, output_tokens: 0, cache_read_tokens: 1 }), true);
    assert.equal(hasUsage({ input_tokens: 0, output_tokens: 0 }), false);
    assert.deepEqual(cacheFields({ input_tokens: 1, output_tokens: 1, cache_write_tokens: 9 }), {
      tokens_cache_write: 9,
    });
  });
  it('chargedTokens: input, output and cache writes; cache reads are not charged', () => {
    assert.equal(chargedTokens({ input_tokens: 3, output_tokens: 2 }), 5);
    assert.equal(
      chargedTokens({ input_tokens: 3, output_tokens: 2, cache_write_tokens: 40, cache_read_tokens: 900 }),
      45,
    );
  });
});
