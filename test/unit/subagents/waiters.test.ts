// Waiters of a subagent's end (reference §1.9 step 3): a long subagent.await timeout waits, it does not overflow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TIMER_MS, SubagentWaiters } from '../../../src/subagents/waiters.js';
import { subagentRecord } from '../store/subagentBehaviour.js';

describe('SubagentWaiters', () => {
  it('waits through a timeout past setTimeout\'s ceiling ("30d") instead of timing out at once', async () => {
    const waiters = new SubagentWaiters();
    const record = subagentRecord();
    // Premise: 30 days is past 2^31 - 1 ms, where an unclamped setTimeout fires after 1 ms.
    const thirtyDays = 30 * 86_400_000;
    assert.ok(thirtyDays > MAX_TIMER_MS);
    const answered = waiters.wait(record, thirtyDays, () => {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    record.status = 'completed';
    record.result = 'done';
    waiters.answer(record);
    const { result } = await answered;
    assert.equal((result as { timed_out?: boolean }).timed_out, undefined);
    assert.equal((result as { status: string }).status, 'completed');
  });

  it('still times out at a short timeout', async () => {
    const waiters = new SubagentWaiters();
    const { result } = await waiters.wait(subagentRecord(), 10, () => {});
    assert.equal((result as { timed_out: boolean }).timed_out, true);
  });
});

describe('SubagentWaiters drop', () => {
  it('resolves a dropped wait (its caller ended) as an error and leaves no empty entry behind', async () => {
    const waiters = new SubagentWaiters();
    const cleanups: Array<() => void> = [];
    const answered = waiters.wait(subagentRecord(), null, (cleanup) => cleanups.push(cleanup));
    assert.equal(waiters.watched, 1);
    // The caller's end runs its cleanups; before the fix the promise stayed pending and the empty Set stayed.
    for (const cleanup of cleanups) cleanup();
    const settled = await Promise.race([
      answered,
      new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 2_000)),
    ]);
    assert.notEqual(settled, 'pending', 'a dropped wait settles');
    if (settled === 'pending') return;
    assert.equal(settled.is_error, true);
    assert.equal((settled.result as { dropped: boolean }).dropped, true);
    assert.equal(waiters.watched, 0);
  });

  it('forgets a handle once its only waiter timed out', async () => {
    const waiters = new SubagentWaiters();
    await waiters.wait(subagentRecord(), 10, () => {});
    assert.equal(waiters.watched, 0);
  });
});
