// Timers and fired keys in the Store behaviour suite (storeBehaviour.ts), alike in every backend (schema 6).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TimerRecord } from '../../../src/domain/timer.js';
import type { Store } from '../../../src/store/store.js';

const timer = (over: Partial<TimerRecord> = {}): TimerRecord => ({
  id: 't1',
  owner: 'turn:1',
  kind: 'tool',
  due: 1_000,
  payload: { req: 1 },
  ...over,
});

export function describeTimers(current: () => Store): void {
  describe('timers', () => {
    it('lists armed timers by due time, replacing one re-armed under its id', async () => {
      const { timers } = current();
      await timers.arm(timer({ id: 'late', due: 3_000 }));
      await timers.arm(timer({ id: 'early', due: 2_000 }));
      await timers.arm(timer({ id: 'late', due: 500, payload: { again: true } }));
      const listed = await timers.list();
      assert.deepEqual(
        listed.map((t) => [t.id, t.due]),
        [
          ['late', 500],
          ['early', 2_000],
        ],
      );
      assert.deepEqual(listed[0]?.payload, { again: true });
    });

    it('settles a firing and arms the next one together; a settled id is gone', async () => {
      const { timers } = current();
      await timers.arm(timer({ id: 'occ-1', owner: 'trigger:a', kind: 'schedule' }));
      assert.equal(await timers.settle('occ-1', timer({ id: 'occ-2', owner: 'trigger:a', due: 5_000 })), true);
      assert.deepEqual(
        (await timers.list()).map((t) => t.id),
        ['occ-2'],
      );
      assert.equal(await timers.settle('occ-1'), false, 'settling twice finds nothing');
    });

    it("cancels every timer of an owner and none of another's", async () => {
      const { timers } = current();
      await timers.arm(timer({ id: 'a', owner: 'turn:1' }));
      await timers.arm(timer({ id: 'b', owner: 'turn:1' }));
      await timers.arm(timer({ id: 'c', owner: 'turn:2' }));
      assert.equal(await timers.cancelOwner('turn:1'), 2);
      assert.deepEqual(
        (await timers.list()).map((t) => t.id),
        ['c'],
      );
    });

    it('remembers a fired key once', async () => {
      const { timers } = current();
      assert.equal(await timers.seen('hook/k1'), false);
      // The first call claims the key (insert-if-absent): only it resolves true.
      assert.equal(await timers.remember('hook/k1', 10), true);
      assert.equal(await timers.remember('hook/k1', 20), false);
      assert.equal(await timers.seen('hook/k1'), true);
    });

    it('forgets the keys of a prefix remembered before a time, and no other', async () => {
      const { timers } = current();
      await timers.remember('webhook/w/old', 10);
      await timers.remember('webhook/w/new', 30);
      await timers.remember('schedule-done/w/old', 10);
      assert.equal(await timers.forget('webhook/', 20), 1);
      const seen = await Promise.all(['webhook/w/old', 'webhook/w/new', 'schedule-done/w/old'].map(timers.seen));
      assert.deepEqual(seen, [false, true, true]);
    });
  });
}
