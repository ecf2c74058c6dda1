import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, parseDuration } from '../../../src/config/duration.js';

describe('parseDuration', () => {
  const table: [string, number][] = [
    ['250ms', 250],
    ['1s', 1_000],
    ['1.5s', 1_500],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['2d', 172_800_000],
    ['1h30m', 5_400_000],
    ['30', 30_000],
    ['0.5', 500],
    [' 10s ', 10_000],
    ['0s', 0],
  ];
  for (const [text, ms] of table) {
    it(`parses ${JSON.stringify(text)} as ${ms} ms`, () => assert.equal(parseDuration(text), ms));
  }

  for (const bad of ['5 minutes', '', 'ms', '-1s', '1x', '1s2', 'abc', '1.s']) {
    it(`rejects ${JSON.stringify(bad)} with a hint`, () => {
      assert.throws(
        () => parseDuration(bad),
        (err: Error) =>
          err.constructor === Error &&
          err.message === `invalid duration ${JSON.stringify(bad)} (use e.g. 500ms, 30s, 5m, 1h)`,
      );
    });
  }
});

describe('formatDuration', () => {
  it('uses the largest exact unit', () => {
    assert.equal(formatDuration(120_000), '2m');
    assert.equal(formatDuration(25_000), '25s');
    assert.equal(formatDuration(3_600_000), '1h');
    assert.equal(formatDuration(1_500), '1500ms');
    assert.equal(formatDuration(0), '0ms');
  });

  it('round-trips through parseDuration', () => {
    for (const ms of [1, 999, 1_000, 61_000, 86_400_000]) assert.equal(parseDuration(formatDuration(ms)), ms);
  });
});
