// A shared (asynchronous) dispatch admission whose answer arrives after the replica lost the conversation's lease
// (issue 19 review item 1): the turn never spawns, what was reserved goes back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnJob } from '../../../src/domain/job.js';
import { createLogger } from '../../../src/obs/log.js';
import type { JobEvent } from '../../../src/supervisor/jobTable.js';
import { type AdmitContext, admitJob } from '../../../src/supervisor/launchSteps.js';

function context(answer: JobEvent) {
  const applied: JobEvent[] = [];
  const released: string[] = [];
  let woken: () => void = () => {};
  const wokenOnce = new Promise<void>((resolve) => (woken = resolve));
  const c: AdmitContext = {
    log: createLogger({ level: 'error', write: () => {} }),
    jobs: {
      apply: (_id, e) => {
        applied.push(e);
        return true;
      },
    },
    launcher: { admit: () => Promise.resolve(answer), release: (id) => void released.push(id) },
    wake: () => woken(),
  };
  return { c, applied, released, wokenOnce };
}

const input = { ctx: 'c1' } as unknown as TurnJob;
const within = <T>(p: Promise<T>) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no wake in 5 s')), 5_000))]);

describe('admitJob over a shared budget', () => {
  it('releases the reservation and applies nothing once the lease is gone', async () => {
    const { c, applied, released, wokenOnce } = context({ type: 'budget_admitted' });
    admitJob(c, '01A', input, () => false);
    await within(wokenOnce);
    assert.deepEqual(applied, []);
    assert.deepEqual(released, ['01A']);
  });

  it('spawns (applies the admission) while the lease is held', async () => {
    const { c, applied, released, wokenOnce } = context({ type: 'budget_admitted' });
    admitJob(c, '01A', input, () => true);
    await within(wokenOnce);
    assert.deepEqual(applied, [{ type: 'budget_admitted' }]);
    assert.deepEqual(released, []);
  });

  it('a wait is applied whatever the lease (nothing was reserved)', async () => {
    const { c, applied, wokenOnce } = context({ type: 'budget_wait', untilMs: 5, reason: 'full' });
    admitJob(c, '01A', input, () => false);
    await within(wokenOnce);
    assert.equal(applied.length, 1);
  });
});
