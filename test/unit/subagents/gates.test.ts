// The gates of subagent.run (reference §1.4) as pure policy: order, exact texts, the rate bucket, sizes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bucketFor,
  checkRun,
  formsTrifecta,
  parseCpuSeconds,
  parseRate,
  parseSize,
  type RunRequest,
  seedBucket,
  takeToken,
} from '../../../src/subagents/gates.js';

const LIMITS = { depth: 3, breadth: 8, total: 64, rate: '8/2s', per_caller: 0 };
const REQ: RunRequest = { instruction: 'count', mode: 'async', limits: {}, priority: 'normal' };
const VIEW = { live: 0, recent: 0, callerDepth: 0, pressure: { level: 'ok' as const, cause: null } };
const fresh = (rate = LIMITS.rate) => bucketFor(null, rate, 0);
const error = (v: ReturnType<typeof checkRun>): string => (v.ok ? 'ok' : v.error);

describe('checkRun', () => {
  it('keeps one caller from taking every breadth slot: breadth − 1 by default, or limits.subagents.per_caller', () => {
    assert.equal(
      error(checkRun(REQ, { ...VIEW, live: 7, recent: 7, callerLive: 7 }, LIMITS, fresh(), 0)),
      'subagent.run refused: 7 subagents live for this caller (limits.subagents.per_caller = 7)',
    );
    // Another caller still gets the eighth slot.
    assert.equal(error(checkRun(REQ, { ...VIEW, live: 7, recent: 7, callerLive: 0 }, LIMITS, fresh(), 0)), 'ok');
    const two = { ...LIMITS, per_caller: 2 };
    assert.equal(
      error(checkRun(REQ, { ...VIEW, live: 2, recent: 2, callerLive: 2 }, two, fresh(), 0)),
      'subagent.run refused: 2 subagents live for this caller (limits.subagents.per_caller = 2)',
    );
  });

  it('refuses in the reference order with its texts', () => {
    assert.equal(
      error(checkRun({ ...REQ, instruction: '  ' }, VIEW, LIMITS, fresh(), 0)),
      'subagent.run: instruction must be non-empty',
    );
    assert.equal(
      error(checkRun({ ...REQ, mode: 'later' }, VIEW, LIMITS, fresh(), 0)),
      'subagent.run: mode must be sync|async|detached|warm',
    );
    const breadth = { ...LIMITS, breadth: 1 };
    assert.equal(
      error(checkRun(REQ, { ...VIEW, live: 1, recent: 1 }, breadth, fresh(), 0)),
      'subagent.run refused: 1 subagents live (limits.subagents.breadth = 1)',
    );
    assert.equal(
      error(checkRun(REQ, { ...VIEW, recent: 64 }, LIMITS, fresh(), 0)),
      'subagent.run refused: 64 subagents spawned (limits.subagents.total = 64)',
    );
    assert.equal(
      error(checkRun(REQ, VIEW, { ...LIMITS, depth: 0 }, fresh(), 0)),
      'subagent.run refused: delegation depth 0 reaches limits.subagents.depth = 0',
    );
    // Breadth goes before depth: both would refuse, the first in order speaks.
    assert.match(error(checkRun(REQ, { ...VIEW, live: 8 }, { ...LIMITS, depth: 0 }, fresh(), 0)), /breadth/);
  });

  it('spends one rate token per call that reaches gate 6, and refuses once the burst is gone', () => {
    let bucket = fresh('1/60s');
    const first = checkRun(REQ, VIEW, LIMITS, bucket, 0);
    assert.equal(first.ok, true);
    bucket = first.bucket;
    assert.equal(
      error(checkRun(REQ, VIEW, LIMITS, bucket, 10)),
      'subagent.run refused: spawn rate exceeded (limits.subagents.rate)',
    );
    // A refused later gate (bad priority) still spent its token.
    const spent = checkRun({ ...REQ, priority: 'urgent' }, VIEW, LIMITS, fresh('1/60s'), 0);
    assert.equal(error(spent), 'subagent.run: priority must be low|normal|high, got "urgent"');
    assert.equal(takeToken(spent.bucket, 1).ok, false);
  });

  it('sheds every spawn under shed (gate 7), only priority low at warn (gate 10), after the rate token', () => {
    const shed = { ...VIEW, pressure: { level: 'shed' as const, cause: 'disk' } };
    const warn = { ...VIEW, pressure: { level: 'warn' as const, cause: 'disk' } };
    const refused = checkRun(REQ, shed, LIMITS, fresh('1/60s'), 0);
    assert.equal(error(refused), 'subagent.run refused: disk pressure (shedding new work; in-flight work drains)');
    assert.equal(takeToken(refused.bucket, 1).ok, false, 'gate 6 came first and spent its token');
    assert.equal(
      error(checkRun({ ...REQ, priority: 'low' }, warn, LIMITS, fresh(), 0)),
      'subagent.run refused: disk pressure (low-priority work sheds at warn)',
    );
    // Gate 9 speaks before gate 10; at warn normal work runs, and without pressure low work runs (the premise).
    assert.match(error(checkRun({ ...REQ, priority: 'urgent' }, warn, LIMITS, fresh(), 0)), /priority must be/);
    assert.equal(checkRun(REQ, warn, LIMITS, fresh(), 0).ok, true);
    assert.equal(checkRun({ ...REQ, priority: 'low' }, VIEW, LIMITS, fresh(), 0).ok, true);
  });

  it('reads memory and cpu caps (gate 9), refusing with the key named', () => {
    const ok = checkRun({ ...REQ, limits: { memory: '512MB', cpu: '5m' } }, VIEW, LIMITS, fresh(), 0);
    assert.ok(ok.ok);
    assert.equal(ok.memoryBytes, 536_870_912);
    assert.equal(ok.cpuSeconds, 300);
    assert.match(
      error(checkRun({ ...REQ, limits: { memory: 'lots' } }, VIEW, LIMITS, fresh(), 0)),
      /^subagent\.run: limits\.memory: /,
    );
    assert.match(
      error(checkRun({ ...REQ, limits: { cpu: 'soon' } }, VIEW, LIMITS, fresh(), 0)),
      /^subagent\.run: limits\.cpu: /,
    );
  });
});

describe('the rate bucket', () => {
  it('starts full, refills burst per period, and is rebuilt when the rate text changes', () => {
    let b = bucketFor(null, '2/1s', 0);
    for (const expected of [true, true, false]) {
      const t = takeToken(b, 0);
      assert.equal(t.ok, expected);
      b = t.bucket;
    }
    assert.equal(takeToken(b, 500).ok, true, 'half a period refills one token');
    assert.equal(bucketFor(b, '2/1s', 600), b, 'kept while the rate is unchanged');
    assert.equal(bucketFor(b, '5/1s', 600).tokens, 5, 'a reload with a new rate starts full');
  });

  it('parses <burst>/<period> and refuses anything else', () => {
    assert.deepEqual(parseRate('8/2s'), { burst: 8, periodMs: 2000 });
    assert.equal(parseRate('8 per 2s'), null);
    assert.equal(parseRate('0/1s'), null);
  });
});

describe('sizes and cpu', () => {
  it('reads binary units and fractions; floors cpu at 1 s', () => {
    assert.equal(parseSize('512MB'), 536_870_912);
    assert.equal(parseSize('1.5k'), 1536);
    assert.equal(parseSize('2gib'), 2 * 1024 ** 3);
    assert.throws(() => parseSize('12 parsecs'));
    assert.equal(parseCpuSeconds('5m'), 300);
    assert.equal(parseCpuSeconds('200ms'), 1);
  });
});

describe('gate 8: the lethal trifecta', () => {
  it('holds only when the servers together have all three tags', () => {
    assert.equal(formsTrifecta([['private_data'], ['untrusted_content', 'external_comms']]), true);
    assert.equal(formsTrifecta([['private_data'], undefined, ['external_comms']]), false);
    assert.equal(formsTrifecta([]), false);
  });

  it('refuses with the reference text after the pressure gate and before the caps are read', () => {
    const text =
      'subagent.run refused: the requested MCP servers form a lethal trifecta (untrusted input + sensitive + egress); ' +
      'set security.allow_trifecta to override';
    const trifecta = { ...VIEW, trifecta: true };
    assert.equal(error(checkRun({ ...REQ, limits: { memory: 'lots' } }, trifecta, LIMITS, fresh(), 0)), text);
    const shed = { ...trifecta, pressure: { level: 'shed' as const, cause: 'disk' } };
    assert.match(error(checkRun(REQ, shed, LIMITS, fresh(), 0)), /disk pressure/);
    assert.equal(error(checkRun(REQ, VIEW, LIMITS, fresh(), 0)), 'ok', 'premise: the same call passes untagged');
  });
});

describe('the subtree ceiling gate', () => {
  it('refuses a nested spawn once a caller above spent its limits.tokens, after depth and before the rate', () => {
    const ceiling = 'subtree token ceiling: sub-1 and its subagents spent 1000 of limits.tokens = 1000';
    const empty = { ...fresh('1/1h'), tokens: 0 };
    const verdict = checkRun(REQ, { ...VIEW, ceiling }, LIMITS, empty, 0);
    assert.equal(error(verdict), `subagent.run refused: ${ceiling}`);
    assert.equal(verdict.ok ? '' : verdict.gate, 'ceiling');
    const deep = checkRun(REQ, { ...VIEW, ceiling, callerDepth: 3 }, LIMITS, empty, 0);
    assert.equal(deep.ok ? '' : deep.gate, 'depth');
  });
});

describe('seedBucket', () => {
  it('starts a restart short of the spawns its stored log shows within one period', () => {
    const asked: number[] = [];
    const seeded = seedBucket(
      '2/1m',
      (periodMs) => {
        asked.push(periodMs);
        return 1;
      },
      5_000,
    );
    assert.deepEqual(asked, [60_000]);
    assert.equal(seeded.tokens, 1);
    assert.equal(takeToken(seeded, 5_000).ok, true);
    assert.equal(takeToken(takeToken(seeded, 5_000).bucket, 5_000).ok, false, 'a fresh bucket would give two');
    assert.equal(seedBucket('2/1m', () => 9, 0).tokens, 0, 'never below empty');
  });
});
