import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gatePicks, prepLine } from '../../../src/supervisor/jobQueries.js';
import { type JobTable, newJob, transition } from '../../../src/supervisor/jobTable.js';
import {
  classifyPressure,
  NO_PRESSURE,
  nextPressure,
  PRESSURE_INTERVAL_MS,
  pressureDue,
} from '../../../src/supervisor/pressure.js';

const MB = 1_000_000;
const disk = (free: number | null) => ({ diskFreeBytes: free, memory: null });

describe('classifyPressure', () => {
  it('sheds under min_free, warns under twice it, is ok above', () => {
    assert.deepEqual(classifyPressure(disk(100 * MB), 256 * MB), { level: 'shed', cause: 'disk' });
    assert.deepEqual(classifyPressure(disk(300 * MB), 256 * MB), { level: 'warn', cause: 'disk' });
    assert.deepEqual(classifyPressure(disk(600 * MB), 256 * MB), { level: 'ok', cause: null });
  });

  it('min_free 0 disables the disk check; an unmeasured disk never sheds', () => {
    assert.deepEqual(classifyPressure(disk(0), 0), { level: 'ok', cause: null });
    assert.deepEqual(classifyPressure(disk(null), 256 * MB), { level: 'ok', cause: null });
  });

  it('sheds for memory at 95 % of the cgroup limit, and names the disk when both shed', () => {
    const memory = (current: number) => ({ diskFreeBytes: 600 * MB, memory: { current, limit: 1000 } });
    assert.deepEqual(classifyPressure(memory(949), 256 * MB), { level: 'ok', cause: null });
    assert.deepEqual(classifyPressure(memory(950), 256 * MB), { level: 'shed', cause: 'memory' });
    const both = { diskFreeBytes: MB, memory: { current: 1000, limit: 1000 } };
    assert.deepEqual(classifyPressure(both, 256 * MB), { level: 'shed', cause: 'disk' });
  });
});

describe('nextPressure', () => {
  it('names each transition once: shed, then nothing while it lasts, then cleared', () => {
    const first = nextPressure(NO_PRESSURE, disk(MB), 256 * MB, 0);
    assert.equal(first.event, 'pressure.shed');
    const again = nextPressure(first.state, disk(2 * MB), 256 * MB, 2_000);
    assert.equal(again.event, null);
    assert.equal(again.state.diskFreeBytes, 2 * MB, 'the reading is kept even without a transition');
    const warn = nextPressure(again.state, disk(300 * MB), 256 * MB, 4_000);
    assert.equal(warn.event, 'pressure.warn');
    assert.equal(nextPressure(warn.state, disk(GB()), 256 * MB, 6_000).event, 'pressure.cleared');
  });

  it('is due at most once per interval', () => {
    assert.equal(pressureDue(NO_PRESSURE, 0), true);
    const state = nextPressure(NO_PRESSURE, disk(GB()), 256 * MB, 10_000).state;
    assert.equal(pressureDue(state, 10_000 + PRESSURE_INTERVAL_MS - 1), false);
    assert.equal(pressureDue(state, 10_000 + PRESSURE_INTERVAL_MS), true);
  });
});

function GB(): number {
  return 1_000 * MB;
}

/** One queued job on c1, a queued goal continuation on c2 and a prepared job on c3. */
function table(): JobTable {
  const queued = newJob({ eventId: '01', ctx: 'c1', principal: 'operator' }, 0);
  const continuation = newJob({ eventId: '02', ctx: 'c2', principal: 'operator', continuation: true }, 0);
  let ready = newJob({ eventId: '03', ctx: 'c3', principal: 'operator' }, 0);
  for (const type of ['prep_start', 'prepared'] as const) {
    const step = transition(ready, { type }, 0);
    if (step.refused) assert.fail(step.reason);
    ready = step.job;
  }
  return new Map([queued, continuation, ready].map((j) => [j.eventId, j]));
}

describe('the pressure gate in the job line', () => {
  const at = { paused: false, draining: false, maxParallel: 8 };
  const ids = (jobs: { eventId: string }[]) => jobs.map((j) => j.eventId);

  it('ok: everything preps and the prepared job starts (the premise)', () => {
    assert.deepEqual(ids(prepLine(table(), 0, { ...at, pressure: 'ok' })), ['01', '02']);
    assert.deepEqual(ids(gatePicks(table(), 0, { ...at, pressure: 'ok' })), ['03']);
  });

  it('shed: nothing preps or starts, and the jobs stay in the table', () => {
    const t = table();
    assert.deepEqual(prepLine(t, 0, { ...at, pressure: 'shed' }), []);
    assert.deepEqual(gatePicks(t, 0, { ...at, pressure: 'shed' }), []);
    assert.equal(t.size, 3);
  });

  it('warn: only the goal continuation waits', () => {
    assert.deepEqual(ids(prepLine(table(), 0, { ...at, pressure: 'warn' })), ['01']);
    assert.deepEqual(ids(gatePicks(table(), 0, { ...at, pressure: 'warn' })), ['03']);
  });
});
