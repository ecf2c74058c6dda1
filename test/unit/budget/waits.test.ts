// The budget's waits as resources: one timer for the earliest wait the job table reports, a log line per wait,
// and room freed reported to whoever holds the waiting jobs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetWaits } from '../../../src/budget/waits.js';
import { createLogger } from '../../../src/obs/log.js';

function waitsRig() {
  const lines: string[] = [];
  let wakes = 0;
  let rooms = 0;
  const waits = new BudgetWaits({
    log: createLogger({ level: 'info', write: (line) => lines.push(line) }),
    now: Date.now,
    wake: () => wakes++,
    onRoom: () => rooms++,
  });
  return { waits, lines, wakes: () => wakes, rooms: () => rooms };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('BudgetWaits', () => {
  it('logs a wait once per event and reason', () => {
    const rig = waitsRig();
    rig.waits.defer('c', 'e1', 1_000, 'window full');
    rig.waits.defer('c', 'e1', 1_000, 'window full');
    rig.waits.defer('c', 'e1', 2_000, 'window full');
    assert.equal(rig.lines.filter((l) => l.includes('budget.wait')).length, 2);
    rig.waits.done('e1');
    rig.waits.defer('c', 'e1', 2_000, 'window full');
    assert.equal(rig.lines.filter((l) => l.includes('budget.wait')).length, 3, 'a done event is logged again');
  });

  it('wakes the reactor once when the earliest wait ends; null disarms', async () => {
    const rig = waitsRig();
    rig.waits.armFor(Date.now() + 20);
    rig.waits.armFor(Date.now() + 20);
    await sleep(60);
    assert.equal(rig.wakes(), 1);
    rig.waits.armFor(Date.now() + 20);
    rig.waits.armFor(null);
    await sleep(60);
    assert.equal(rig.wakes(), 1, 'a disarmed timer never fires');
  });

  it('freed room is reported (every waiting job asks again)', () => {
    const rig = waitsRig();
    rig.waits.clear();
    assert.equal(rig.rooms(), 1);
  });
});
