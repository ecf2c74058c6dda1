// Schedules as pure policy: next firing (cron in a zone across DST, every, at), jitter, catch_up and overlap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compileSchedule,
  decideOverlap,
  jitterOf,
  MISS_GRACE_MS,
  nextOccurrence,
  planDue,
  type Schedule,
  type ScheduleFields,
  validateSchedule,
} from '../../../src/triggers/schedule.js';

function compiled(fields: ScheduleFields): Schedule {
  const c = compileSchedule(fields, 'workflows.w.start.schedule');
  if (!c.ok) throw new Error(c.errors.join('; '));
  return c.schedule;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('nextOccurrence', () => {
  it('cron with tz Europe/Paris keeps 09:00 local across the spring DST change (UTC+1 → UTC+2)', () => {
    const s = compiled({ cron: '0 9 * * *', tz: 'Europe/Paris' });
    // 2026-03-29 is the spring change in the EU: the day before, 09:00 is 08:00Z; the day after, 07:00Z.
    const sat = nextOccurrence(s, Date.parse('2026-03-28T00:00:00Z'), 0);
    const sun = nextOccurrence(s, sat ?? 0, 0);
    const mon = nextOccurrence(s, sun ?? 0, 0);
    assert.equal(iso(sat), '2026-03-28T08:00:00.000Z');
    assert.equal(iso(sun), '2026-03-29T07:00:00.000Z');
    assert.equal(iso(mon), '2026-03-30T07:00:00.000Z');
  });

  it('cron with tz Europe/Paris across the autumn change fires 02:30 local once, and a skipped 02:30 in spring at 03:00', () => {
    const s = compiled({ cron: '30 2 * * *', tz: 'Europe/Paris' });
    const autumn = nextOccurrence(s, Date.parse('2026-10-25T00:00:00Z'), 0);
    const after = nextOccurrence(s, autumn ?? 0, 0);
    assert.ok(autumn !== null && after !== null);
    assert.equal(new Date(autumn).getUTCDate(), 25, 'once on the change day');
    assert.equal(new Date(after).getUTCDate(), 26, 'the next one is the next day, not the repeated hour');
    assert.equal(iso(after), '2026-10-26T01:30:00.000Z');
    const spring = nextOccurrence(s, Date.parse('2026-03-29T00:00:00Z'), 0);
    assert.equal(iso(spring), '2026-03-29T01:00:00.000Z', '02:30 does not exist that day: 03:00 CEST');
  });

  it('the same cron in UTC differs (the premise: tz is applied, not ignored)', () => {
    const s = compiled({ cron: '0 9 * * *' });
    assert.equal(iso(nextOccurrence(s, Date.parse('2026-03-29T00:00:00Z'), 0)), '2026-03-29T09:00:00.000Z');
  });

  it('every counts from its anchor, so a restart keeps the grid', () => {
    const s = compiled({ every: '2s' });
    assert.equal(nextOccurrence(s, 10_000, 10_000), 12_000);
    assert.equal(nextOccurrence(s, 13_500, 10_000), 14_000);
    assert.equal(nextOccurrence(s, 14_000, 10_000), 16_000, 'strictly after');
  });

  it('at is a wall-clock time read in tz (or its own offset), fired once', () => {
    const s = compiled({ at: '2026-07-01T09:00', tz: 'Europe/Paris' });
    assert.equal(nextOccurrence(s, 0, 0), Date.parse('2026-07-01T07:00:00Z'));
    assert.equal(nextOccurrence(s, Date.parse('2026-07-01T07:00:00Z'), 0), null, 'consumed');
    assert.equal(compiled({ at: '2026-07-01T09:00:00Z' }).rule.kind, 'at');
  });
});

describe('validateSchedule', () => {
  const where = 'workflows.nightly.start.schedule';
  it('names the field for a bad cron expression', () => {
    const [error] = validateSchedule({ cron: '61 * * * *' }, where);
    assert.match(
      error ?? '',
      /^workflows\.nightly\.start\.schedule\.cron: invalid cron expression "61 \* \* \* \*" \(/,
    );
  });
  it('names the field for an unknown zone', () => {
    assert.deepEqual(validateSchedule({ cron: '0 9 * * *', tz: 'Mars/Olympus' }, where), [
      `${where}.tz: unknown time zone "Mars/Olympus" (use an IANA name such as Europe/Paris)`,
    ]);
  });
  it('refuses none or several of every, at, cron; a bad duration; jitter not under every', () => {
    assert.match(validateSchedule({}, where)[0] ?? '', /set exactly one of every, at, cron/);
    assert.match(validateSchedule({ every: '1s', cron: '* * * * *' }, where)[0] ?? '', /got every, cron/);
    assert.match(validateSchedule({ every: 'soon' }, where)[0] ?? '', /\.every: invalid duration "soon"/);
    assert.match(validateSchedule({ every: '1s', jitter: '1s' }, where)[0] ?? '', /\.jitter: must be shorter/);
    assert.match(validateSchedule({ at: '02:00Z' }, where)[0] ?? '', /\.at: not a date and time/);
    assert.deepEqual(validateSchedule({ cron: '*/5 * * * *', tz: 'Europe/Paris', jitter: '10s' }, where), []);
  });
});

describe('jitterOf', () => {
  it('is bounded and the same for the same seed and occurrence', () => {
    const s = compiled({ every: '1m', jitter: '5s' });
    const values = Array.from({ length: 200 }, (_, i) => jitterOf(s, 'w.start', i * 60_000));
    assert.ok(values.every((v) => v >= 0 && v <= 5_000));
    assert.ok(new Set(values).size > 50, 'spread, not constant');
    assert.equal(jitterOf(s, 'w.start', 120_000), jitterOf(s, 'w.start', 120_000));
    assert.equal(jitterOf(compiled({ every: '1m' }), 'w.start', 0), 0);
  });
});

describe('planDue', () => {
  const every2s = (catch_up: 'none' | 'one' | 'all') => compiled({ every: '2s', catch_up });
  it('an occurrence fired on time (or a little late) fires alone whatever catch_up says', () => {
    const plan = planDue(every2s('none'), 4_000, 4_000, 4_000 + MISS_GRACE_MS - 1, 0);
    assert.deepEqual(plan, { fire: [4_000], skipped: 0, next: 6_000 });
  });
  it('after a 5 s outage: none fires none, one fires the latest, all fires each missed one', () => {
    // Due at 4 s, back at 9.5 s: 4, 6 and 8 s were missed (8 s is 1.5 s late); 10 s is next.
    assert.deepEqual(planDue(every2s('none'), 4_000, 4_000, 9_500, 0), { fire: [], skipped: 3, next: 10_000 });
    assert.deepEqual(planDue(every2s('one'), 4_000, 4_000, 9_500, 0), { fire: [8_000], skipped: 2, next: 10_000 });
    assert.deepEqual(planDue(every2s('all'), 4_000, 4_000, 9_500, 0), {
      fire: [4_000, 6_000, 8_000],
      skipped: 0,
      next: 10_000,
    });
  });
  it('never catches up an occurrence missed more than 7 days ago (its keys may be pruned)', () => {
    const DAY = 86_400_000;
    const s = compiled({ every: '1d', catch_up: 'all' });
    // Down from day 1 to day 10.5: days 1..10 were missed; only days 4..10 are within the 7 days kept.
    const plan = planDue(s, DAY, DAY, 10.5 * DAY, 0);
    assert.deepEqual(
      plan.fire,
      [4, 5, 6, 7, 8, 9, 10].map((d) => d * DAY),
    );
    assert.equal(plan.skipped, 3);
    const old = compiled({ at: '2026-07-01T09:00:00Z', catch_up: 'one' });
    const at = Date.parse('2026-07-01T09:00:00Z');
    assert.deepEqual(planDue(old, at, at, at + 8 * DAY, 0), { fire: [], skipped: 1, next: null });
  });
  it('a consumed at has no next occurrence', () => {
    const s = compiled({ at: '2026-07-01T09:00:00Z' });
    const at = Date.parse('2026-07-01T09:00:00Z');
    assert.deepEqual(planDue(s, at, at, at + 10, 0), { fire: [at], skipped: 0, next: null });
  });
});

describe('decideOverlap', () => {
  it('fires when nothing is live; otherwise skip, queue (fire) or cancel the previous run', () => {
    assert.equal(decideOverlap('skip', false), 'fire');
    assert.equal(decideOverlap('skip', true), 'skip');
    assert.equal(decideOverlap('queue', true), 'fire');
    assert.equal(decideOverlap('cancel_previous', true), 'cancel_previous');
  });
});
